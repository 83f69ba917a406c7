// Robust parity: a robot on a ring of six stations. Priority 0 (charging) must
// be seen infinitely often unless the robot settles where priority 2 is the
// least seen; the odd priorities 1 and 3 mark stations the robot must not keep
// returning to. A gust may push the robot one station further.
automaton ring;
metric euclidean;
inputs next, stay;
disturbances gust;
state s0 at (2, 0) priority 0;
state s1 at (1, 2) priority 3;
state s2 at (-1, 2) priority 2;
state s3 at (-2, 0) priority 1;
state s4 at (-1, -2) priority 2;
state s5 at (1, -2) priority 3;
init s2;
trans s0 next -> s1 | gust -> s2;
trans s1 next -> s2 | gust -> s3;
trans s2 next -> s3 | gust -> s4;
trans s3 next -> s4 | gust -> s5;
trans s4 next -> s5 | gust -> s0;
trans s5 next -> s0 | gust -> s1;
trans s0 stay -> s0;
trans s2 stay -> s2 | gust -> s3;
trans s4 stay -> s4 | gust -> s5;
parity;
