package envs_test

import (
	"fmt"
	"log"
	"math/rand/v2"
	"strings"

	"github.com/arbor-ai/arbor/envs"
)

func ExampleParseMaze() {
	const file = `5 5
WWWWW
W..EW
WW.WW
W..SW
WWWWW
`
	m, err := envs.ParseMaze(strings.NewReader(file))
	if err != nil {
		log.Fatal(err)
	}
	n, err := m.ShortestPath()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("states:", m.NumStates(), "observations:", m.NumObservations())
	fmt.Println("distance from S to E:", m.Observation(m.Start()))
	fmt.Println("shortest path:", n, "actions")

	// Faults name the line and the column of the file.
	_, err = envs.ParseMaze(strings.NewReader("4 5\nWWWWW\nWS.EW\nW.x.W\nWWWWW\n"))
	fmt.Println(err)
	// Output:
	// states: 7 observations: 5
	// distance from S to E: 2
	// shortest path: 4 actions
	// line 4, column 3: invalid character 'x' (want W, ., S or E)
}

func ExampleMaze_Render() {
	m, err := envs.ParseMaze(strings.NewReader("5 5\nWWWWW\nW..EW\nWW.WW\nW..SW\nWWWWW\n"))
	if err != nil {
		log.Fatal(err)
	}
	m.Reset()
	path := []int{m.State()}
	for _, u := range []int{envs.Left, envs.Up, envs.Up, envs.Right} {
		obs, err := m.Step(u)
		if err != nil {
			log.Fatal(err)
		}
		r, c := m.Position()
		fmt.Printf("%-5s -> (%d,%d) distance %d\n", envs.ActionNames[u], r, c, obs)
		path = append(path, m.State())
	}
	fmt.Println("done:", m.Done())
	fmt.Print(m.Render(path))
	// Output:
	// LEFT  -> (3,2) distance 3
	// UP    -> (2,2) distance 2
	// UP    -> (1,2) distance 1
	// RIGHT -> (1,3) distance 0
	// done: true
	// WWWWW
	// W.*EW
	// WW*WW
	// W.*SW
	// WWWWW
}

func ExampleMaze_Model() {
	m, err := envs.ParseMaze(strings.NewReader("3 5\nWWWWW\nWS.EW\nWWWWW\n"))
	if err != nil {
		log.Fatal(err)
	}
	mm, err := m.Model(envs.DefaultNoise, envs.DefaultPrefPrecision)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(mm.States, mm.Observations)
	fmt.Printf("A = %.2f\n", mm.A)
	fmt.Printf("B[RIGHT] = %.2f\n", mm.B[envs.Right])
	fmt.Printf("C = %.3f\n", mm.C)
	fmt.Printf("D = %.2f\n", mm.D)
	// Output:
	// [(1,1) (1,2) (1,3)] [d=0 d=1 d=2]
	// A = [[0.05 0.05 0.90] [0.05 0.90 0.05] [0.90 0.05 0.05]]
	// B[RIGHT] = [[0.05 0.05 0.05] [0.90 0.05 0.05] [0.05 0.90 0.90]]
	// C = [0.950 0.047 0.002]
	// D = [0.90 0.05 0.05]
}

func ExampleTMaze() {
	tm, err := envs.NewTMaze(nil, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		log.Fatal(err)
	}
	if err := tm.FixContext(envs.TMazeRewardLeft); err != nil {
		log.Fatal(err)
	}
	obs := tm.Reset()
	fmt.Println(envs.TMazeObservationNames[obs])
	for _, u := range []int{envs.TMazeCue, envs.TMazeLeft} {
		obs, err = tm.Step(u)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(envs.TMazeActionNames[u], "->", envs.TMazeObservationNames[obs])
	}
	fmt.Println("done:", tm.Done())
	// Output:
	// none
	// go-cue -> cue-left
	// go-left -> reward
	// done: true
}
