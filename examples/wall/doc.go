// Command wall measures the exponential wall of classic active inference
// (paper Appendix H): the time and peak memory of the classic agent planning
// one step in the maze 1.maze with policies of N steps, N = 2..8. With the
// 5 maze actions there are 5^N policies: 78,125 for N = 7 and 390,625 for
// N = 8. SPM's spm_maze_search stores the beliefs of every policy and runs
// out of memory at N = 7; arbor walks the policy tree depth first, sharing
// prefixes, in O(N |S|) working memory.
//
// Every measurement is a fresh process: wall re-executes itself as a child
// for each N, the child loads the maze, builds the agent, plans one step and
// reports its planning time, and the parent reads the child's wall time and
// peak resident set size (getrusage Maxrss). With -search it also times the
// whole search (the agent acts until it reaches the exit, at most -steps
// actions), the task SPM's figures are for.
//
// Usage, from the repository root:
//
//	go run ./examples/wall [-maze examples/mazes/1.maze] [-min 2] [-max 8]
//	    [-runs 3] [-planner agent|stream] [-search] [-png docs/wall.png]
//
// It prints a markdown table (docs/benchmarks.md, section "Classic active
// inference: the exponential wall") and draws the plot with gonum.org/v1/plot.
// BenchmarkPlanOneStep in wall_test.go measures the same planning step in
// process.
package main
