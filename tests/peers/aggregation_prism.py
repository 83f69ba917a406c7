"""An independent PRISM encoding of examples/aggregation (aggregation with
crash faults), written by hand from its description and not by mavis: S(n)
with one module per robot and one for the site, each robot's join and leave
a label of its own that the site shares, the crash fault folded into the
search step, and a loop where no robot can move (mavis adds that loop to a
state without enabled actions; PRISM would leave a deadlock)."""

from fractions import Fraction

CAP = 3  # the site counts robots up to 3


def dec(q):
    """A probability as an exact PRISM literal (a fraction of integers)."""
    q = Fraction(q)
    return f"{q.numerator}/{q.denominator}"


def robot(i, pc):
    s = f"state{i}"
    # Search: crash with pc; else find the site with 2/5 (PRISM reads the
    # branches separately, so the three add up to 1).
    site, stay = (1 - pc) * Fraction(2, 5), (1 - pc) * Fraction(3, 5)
    return [
        f"module robot{i}",
        f"  {s} : [0..4] init 0;",
        f"  [] {s}=0 -> {dec(pc)}:({s}'=4) + {dec(site)}:({s}'=1) + {dec(stay)}:true;",
        f"  [join{i}] {s}=1 -> ({s}'=2);",
        f"  [] {s}=2 -> 9/10:true + 1/10:({s}'=3);",
        f"  [leave{i}] {s}=3 -> ({s}'=0);",
        "endmodule",
    ]


def prism_aggregation(n, pc):
    """S(n) with crash probability pc, its labels and reward structures."""
    out = ["mdp", ""]
    for i in range(1, n + 1):
        out += robot(i, Fraction(pc)) + [""]
    # A robot can move unless it crashed, or it is leaving and the count is 0.
    stuck = " & ".join(f"(state{i}=4 | (state{i}=3 & size=0))" for i in range(1, n + 1))
    out += ["module site", f"  size : [0..{CAP}] init 0;"]
    for i in range(1, n + 1):
        out.append(f"  [join{i}] true -> (size'=min(size+1, {CAP}));")
        out.append(f"  [leave{i}] size>0 -> (size'=size-1);")
    out += [f"  [] {stuck} -> true;", "endmodule", ""]
    out += ['label "aggregate2" = size >= 2;', 'label "crashed" = state1 = 4;', ""]
    out += ['rewards "steps"', "  true : 1;", "endrewards"]
    out += ['rewards "aggregated"', "  size >= 2 : 1;"]
    out += [f"  [leave{i}] true : 1/2;" for i in range(1, n + 1)]
    out += ["endrewards"]
    return "\n".join(out) + "\n"
