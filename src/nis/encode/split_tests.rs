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

/// Every sequence of `depth` actions of `actions`, in order.
fn sequences(actions: &[usize], depth: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for _ in 0..depth {
        out = out
            .into_iter()
            .flat_map(|s: Vec<usize>| {
                actions.iter().map(move |&a| {
                    let mut t = s.clone();
                    t.push(a);
                    t
                })
            })
            .collect();
    }
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, failure_persistence: None, ..Default::default() })]

    /// The choice split's parts cover the runs: whichever parts are split
    /// further (`cuts`, one bit per part met), every sequence of the
    /// environment's actions begins with the pins of exactly one leaf.
    #[test]
    fn choice_parts_cover_every_sequence_once(
        width in 2usize..=4,
        depth in 1usize..=4,
        cuts in proptest::collection::vec(proptest::bool::ANY, 1..200),
    ) {
        // Actions as a protocol lists them (not 0..width: gaps allowed).
        let actions: Vec<usize> = (0..width).map(|a| 2 * a + 1).collect();
        let mut open = vec![Vec::new()];
        let mut leaves: Vec<Vec<usize>> = Vec::new();
        let mut bits = cuts.iter().cycle();
        // The root is always split, as a stalled root is.
        let mut first = true;
        while let Some(pins) = open.pop() {
            let cut = first || *bits.next().unwrap();
            first = false;
            if cut && pins.len() < depth {
                let parts = choice_parts(&pins, &actions);
                proptest::prop_assert_eq!(parts.len(), actions.len());
                for p in &parts {
                    proptest::prop_assert_eq!(&p[..pins.len()], &pins[..]);
                    proptest::prop_assert_eq!(p.len(), pins.len() + 1);
                }
                open.extend(parts);
            } else {
                leaves.push(pins);
            }
        }
        for s in sequences(&actions, depth) {
            let covering = leaves.iter().filter(|l| s.starts_with(l)).count();
            proptest::prop_assert_eq!(covering, 1, "{:?} in {:?}", s, leaves);
        }
        // And no leaf pins an action that is not one of the choices.
        let count: usize = leaves.iter().map(|l| width.pow((depth - l.len()) as u32)).sum();
        proptest::prop_assert_eq!(count, width.pow(depth as u32));
    }
}

/// A conjunction of two steps needs two successors, which pinning one
/// action per round could not give: such a goal is not one path.
#[test]
fn goals_that_are_one_path() {
    use crate::nis::front::core::{Core, Node};
    let lit = |label| Node::Lit {
        label,
        agent: None,
        negated: false,
    };
    // EX EX !safe (the dual of AX^2 safe): one path, 2 rounds.
    let chain = Core {
        nodes: vec![lit(0), Node::EX(0), Node::EX(1)],
        root: 2,
    };
    assert!(one_path(&chain));
    assert_eq!(steps(&chain), 2);
    // EX a | EX b: either successor alone is a solution.
    let or = Core {
        nodes: vec![
            lit(0),
            lit(1),
            Node::EX(0),
            Node::EX(1),
            Node::Or(vec![2, 3]),
        ],
        root: 4,
    };
    assert!(one_path(&or));
    // a & EX b: atoms along the path.
    let and_lit = Core {
        nodes: vec![lit(0), lit(1), Node::EX(1), Node::And(vec![0, 2])],
        root: 3,
    };
    assert!(one_path(&and_lit));
    // EX a & EX EX b: two successors.
    let and = Core {
        nodes: vec![
            lit(0),
            lit(1),
            Node::EX(0),
            Node::EX(1),
            Node::EX(3),
            Node::And(vec![2, 4]),
        ],
        root: 5,
    };
    assert!(!one_path(&and));
    assert_eq!(steps(&and), 2);
}
