use super::*;

fn real(lo: f64, hi: f64) -> Side {
    Side {
        lo,
        hi,
        integer: false,
        members: false,
    }
}

fn int(lo: f64, hi: f64) -> Side {
    Side {
        lo,
        hi,
        integer: true,
        members: false,
    }
}

#[test]
fn real_halves_share_the_midpoint() {
    assert_eq!(
        real(-133.0, -129.0).halves(),
        Some((real(-133.0, -131.0), real(-131.0, -129.0)))
    );
    // No f64 strictly between: nothing to halve.
    let x = 1.0f64;
    assert_eq!(real(x, x.next_up()).halves(), None);
    assert_eq!(real(2.0, 2.0).halves(), None);
}

#[test]
fn integer_halves_part_between_consecutive_integers() {
    assert_eq!(int(0.0, 1.0).halves(), Some((int(0.0, 0.0), int(1.0, 1.0))));
    assert_eq!(int(0.0, 4.0).halves(), Some((int(0.0, 2.0), int(3.0, 4.0))));
    assert_eq!(
        int(-3.0, -2.0).halves(),
        Some((int(-3.0, -3.0), int(-2.0, -2.0)))
    );
    assert_eq!(int(5.0, 5.0).halves(), None);
}

#[test]
fn the_widest_side_relative_to_the_initial_box_is_halved() {
    let root = vec![Some(real(0.0, 100.0)), None, Some(int(0.0, 3.0))];
    // 100 of 100 against 3 of 3: a tie, the first side.
    let (a, b) = halve(&root, &root).unwrap();
    assert_eq!(a[0], Some(real(0.0, 50.0)));
    assert_eq!(b[0], Some(real(50.0, 100.0)));
    assert_eq!((a[2], b[2]), (root[2], root[2]));
    // Half of the real side against all of the integer one.
    let (c, d) = halve(&a, &root).unwrap();
    assert_eq!((c[0], d[0]), (a[0], a[0]));
    assert_eq!((c[2], d[2]), (Some(int(0.0, 1.0)), Some(int(2.0, 3.0))));
    // Nothing left to halve.
    let points = vec![Some(real(1.0, 1.0)), None, Some(int(2.0, 2.0))];
    assert!(halve(&points, &root).is_none());
}

fn members(lo: f64, hi: f64) -> Side {
    Side {
        lo,
        hi,
        integer: true,
        members: true,
    }
}

#[test]
fn a_list_is_halved_before_any_interval() {
    // ARCH-COMP's VCAS: h in [-133, -129], v among four climbrates.
    let root = vec![Some(real(-133.0, -129.0)), Some(members(0.0, 3.0))];
    let (a, b) = halve(&root, &root).unwrap();
    assert_eq!((a[0], b[0]), (root[0], root[0]));
    assert_eq!(
        (a[1], b[1]),
        (Some(members(0.0, 1.0)), Some(members(2.0, 3.0)))
    );
    // Half of the list against all of h: still the list.
    let (c, d) = halve(&a, &root).unwrap();
    assert_eq!(
        (c[1], d[1]),
        (Some(members(0.0, 0.0)), Some(members(1.0, 1.0)))
    );
    // One member: h is halved.
    let (e, f) = halve(&c, &root).unwrap();
    assert_eq!(
        (e[0], f[0]),
        (Some(real(-133.0, -131.0)), Some(real(-131.0, -129.0)))
    );
    assert_eq!((e[1], f[1]), (c[1], c[1]));
    // One member and a point of h: nothing left to halve.
    let one = vec![Some(real(-131.0, -131.0)), Some(members(2.0, 2.0))];
    assert!(halve(&one, &root).is_none());
    // The halves' starts: members 0..=1 and 2..=3 of the list.
    let starts = start_of(&b);
    assert!(matches!(starts[1], StartVar::Among(2, 3)));
    assert!(matches!(starts[0], StartVar::Within(lo, hi) if (lo, hi) == (-133.0, -129.0)));
}
