// The transient-fault controller: a robot climbs an icy ramp of L cells to the
// dock at the top. A fault (a slip) sends it back to the bottom; slips are
// transient: `mavis robust faults` assumes at most one every T steps.
automaton icy_ramp;
const L = 6;
metric manhattan;
inputs up, rest;
disturbances slip;
state r0 at (0);
state r1 at (1);
state r2 at (2);
state r3 at (3);
state r4 at (4);
state r5 at (5);
state r6 at (L);
init r0;
trans r0 up -> r1;
trans r1 up -> r2 | slip -> r0;
trans r2 up -> r3 | slip -> r0;
trans r3 up -> r4 | slip -> r0;
trans r4 up -> r5 | slip -> r0;
trans r5 up -> r6 | slip -> r0;
trans r1 rest -> r1;
trans r2 rest -> r2;
trans r3 rest -> r3;
trans r4 rest -> r4;
trans r5 rest -> r5;
reach r6;
