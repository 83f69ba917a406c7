"""An independent PRISM encoding of the seed's foraging swarm (Lomuscio,
Pirovano, IJCAI 2020, Section 5), written by hand from the paper and not by
mavis: S(n) with one module per robot and the nest, and the set abstraction
as one module of Booleans (which local states are occupied). Used by the
Storm peer tests and by benches/swarm_storm.py."""

TRIP = 4


def robot_commands(i, pf, flags, moves=""):
    """Robot i's commands, the fault multiplied into the moves that carry food;
    `moves` labels the robot's move commands (for action rewards)."""
    s, t, d = f"state{i}", f"t{i}", f"d{i}"
    # With the flags tracked, every move of the robot sets `injected` to
    # whether the fault struck, and `faulty` once it has.
    clean = f"(injected{i}'=false)" if flags else ""
    fault = f"&(injected{i}'=true)&(faulty{i}'=true)" if flags else ""

    def upd(*assigns):
        parts = [f"({a})" for a in assigns] + ([clean] if flags else [])
        return "&".join(parts) if parts else "true"

    def drop(*assigns):
        return "&".join(f"({a})" for a in assigns) + fault

    q = 1 - pf
    s0, s2, s3, s4, s5, s6 = (f"{s}'={v}" for v in (0, 2, 3, 4, 5, 6))
    t0, t1, d0, dtrip, dstep = f"{t}'=0", f"{t}'=1", f"{d}'=0", f"{d}'={TRIP}", f"{d}'={d}-1"
    s1 = f"{s}'=1"
    return [
        f"[] {s}=0 -> 0.5:{upd(s1)} + 0.5:{upd()};",
        f"[] {s}=1 & {t}=0 -> 0.3:{upd(s2)} + 0.7:{upd(t1)};",
        f"[] {s}=1 & {t}=1 -> 0.3:{upd(s2, t0)} + 0.7:{upd(s0, t0)};",
        f"[{moves}] {s}=2 -> 1:{upd(s3)};",
        f"[] {s}=3 -> 1:{upd(s4, dtrip)};",
        f"[{moves}] {s}=4 & {d}>1 -> {pf}:{drop(s6, dstep)} + {q}:{upd(dstep)};",
        f"[{moves}] {s}=4 & {d}=1 -> {pf}:{drop(s6, d0)} + {q}:{upd(s5, d0)};",
        f"[deposit{i}] {s}=5 -> 1:{upd(s0)};",
        f"[{moves}] {s}=6 & {d}>0 -> 1:{upd(dstep)};",
        f"[{moves}] {s}=6 & {d}=0 -> 1:{upd(s0)};",
    ]


# Reward structures, as a swarm file writes them (appended to foraging.swarm
# by the tests) and as written here for PRISM by hand.
SWARM_REWARDS = """
rewards "steps"
  true : 1;
endrewards
rewards "work"
  [move] true : 1;
  [deposit] true : 2;
  state_1_1=4 : 1/4;
  foodDeposited_E=1 : 3;
endrewards
"""


def prism_rewards(n):
    """The same reward structures over S(n)'s PRISM variables and labels."""
    work = [f"  [move{i}] true : 1;" for i in range(1, n + 1)]
    work += [f"  [deposit{i}] true : 2;" for i in range(1, n + 1)]
    work += ["  state1=4 : 0.25;", "  food=1 : 3;"]
    return ['rewards "steps"', "  true : 1;", "endrewards", 'rewards "work"', *work, "endrewards"]


def prism_concrete(n, pf, flags=False, rewards=False):
    """S(n) in PRISM: one module per robot, the nest synchronising on each
    robot's deposit; with `rewards`, the robots' moves are labelled
    `move{i}` (no other module has them) and the reward structures follow."""
    out = ["mdp", ""]
    for i in range(1, n + 1):
        out.append(f"module robot{i}")
        out.append(f"  state{i} : [0..6] init 0;")
        out.append(f"  t{i} : [0..1] init 0;")
        out.append(f"  d{i} : [0..{TRIP}] init 0;")
        if flags:
            out.append(f"  faulty{i} : bool init false;")
            out.append(f"  injected{i} : bool init false;")
        out += ["  " + c for c in robot_commands(i, pf, flags, f"move{i}" if rewards else "")]
        out.append("endmodule")
    out.append("module nest")
    out.append("  food : [0..2] init 0;")
    for i in range(1, n + 1):
        out.append(f"  [deposit{i}] true -> (food'=min(food+1, 2));")
    out.append("endmodule")
    out.append('label "deposited2" = food > 1;')
    if rewards:
        out += prism_rewards(n)
    return "\n".join(out) + "\n"


# The robot's 14 local states (state, t, d) and their commands: (is_deposit,
# [(probability, target)]); the fault already multiplied in.
def local_table(pf):
    table = {
        (0, 0, 0): [(False, [(0.5, (1, 0, 0)), (0.5, (0, 0, 0))])],
        (1, 0, 0): [(False, [(0.3, (2, 0, 0)), (0.7, (1, 1, 0))])],
        (1, 1, 0): [(False, [(0.3, (2, 0, 0)), (0.7, (0, 0, 0))])],
        (2, 0, 0): [(False, [(1.0, (3, 0, 0))])],
        (3, 0, 0): [(False, [(1.0, (4, 0, TRIP))])],
        (5, 0, 0): [(True, [(1.0, (0, 0, 0))])],
        (6, 0, 0): [(False, [(1.0, (0, 0, 0))])],
    }
    for d in range(1, TRIP + 1):
        home = (5, 0, 0) if d == 1 else (4, 0, d - 1)
        table[(4, 0, d)] = [(False, [(pf, (6, 0, d - 1)), (1 - pf, home)])]
        if d < TRIP:
            table[(6, 0, d)] = [(False, [(1.0, (6, 0, d - 1))])]
    assert len(table) == 14
    return table


def prism_set_abstraction(pf):
    """The set abstraction (Booleans: which local states are occupied), one
    module: each occupied local state's command either keeps it occupied (two
    or more robots there) or empties it (exactly one)."""
    table = local_table(pf)
    names = {s: f"b{k}" for k, s in enumerate(sorted(table))}
    out = ["mdp", "", "module abstraction"]
    for s, b in names.items():
        out.append(f"  {b} : bool init {'true' if s == (0, 0, 0) else 'false'};")
    out.append("  food : [0..2] init 0;")
    for s, cmds in table.items():
        b = names[s]
        for deposit, dist in cmds:
            extra = "&(food'=min(food+1, 2))" if deposit else ""
            stay = " + ".join(f"{p}:({names[t]}'=true){extra}" for p, t in dist)
            leave = " + ".join(
                f"{p}:({b}'={'true' if t == s else 'false'})" + ("" if t == s else f"&({names[t]}'=true)") + extra
                for p, t in dist
            )
            out.append(f"  [] {b} -> {stay};")
            out.append(f"  [] {b} -> {leave};")
    out.append("endmodule")
    out.append('label "deposited2" = food > 1;')
    return "\n".join(out) + "\n"
