package envs_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/arbor-ai/arbor/envs"
	"github.com/arbor-ai/arbor/internal/misusetest"
)

// TestMisuse runs every misuse of the package's API that the package
// refuses: with an error, or with the panic that a doc comment documents
// (a programming error), or gives a documented meaning (the zero TMaze).
func TestMisuse(t *testing.T) {
	mz, err := envs.LoadMaze("testdata/mazes/1.maze")
	if err != nil {
		t.Fatal(err)
	}
	call := func(f func()) func() error { return func() error { f(); return nil } }
	misusetest.Run(t, "envs: ", []misusetest.Case{
		{Name: "ParseMaze nil reader", Call: func() error { _, err := envs.ParseMaze(nil); return err }, Msg: "envs: ParseMaze: nil reader"},
		{Name: "zero Maze Step", Call: func() error { _, err := new(envs.Maze).Step(0); return err }, Msg: "the zero Maze has no cells"},
		{Name: "zero Maze ShortestPath", Call: func() error { _, err := new(envs.Maze).ShortestPath(); return err }, Msg: "the zero Maze"},
		{Name: "zero Maze Model", Call: func() error { _, err := new(envs.Maze).Model(0.1, 1); return err }, Msg: "the zero Maze"},
		{Name: "zero Maze POMDP", Call: func() error { _, err := new(envs.Maze).POMDP(0.1, 1); return err }, Msg: "the zero Maze"},
		{Name: "zero Maze Reset", Call: call(func() { new(envs.Maze).Reset() }), Panics: "Maze.Reset", Msg: "envs: Maze.Reset: the zero Maze has no cells"},
		{Name: "zero Maze Position", Call: call(func() { new(envs.Maze).Position() }), Panics: "Maze.Position", Msg: "state 0 out of range [0, 0)"},
		{Name: "zero Maze sizes", Call: func() error {
			var m envs.Maze
			if m.NumStates() != 0 || m.NumObservations() != 0 {
				return fmt.Errorf("%d states, %d observations", m.NumStates(), m.NumObservations())
			}
			return nil
		}, OK: "Maze"},
		{Name: "Maze.Step action out of range", Call: func() error { _, err := mz.Clone().Step(5); return err }, Msg: "action 5 out of range [0, 5)"},
		{Name: "Maze.Next state out of range", Call: call(func() { mz.Next(-1, 0) }), Panics: "Maze.Next", Msg: "state -1 out of range"},
		{Name: "Maze.CellOf state out of range", Call: call(func() { mz.CellOf(mz.NumStates()) }), Panics: "Maze.CellOf", Msg: "out of range"},
		{Name: "Maze.Model bad noise", Call: func() error { _, err := mz.Model(1, 1); return err }, Msg: "noise 1 out of range"},
		{Name: "TMaze.Step before Reset", Call: func() error { _, err := new(envs.TMaze).Step(1); return err }, Msg: "envs: T-maze: Step before Reset"},
		{Name: "TMaze.Step action out of range", Call: func() error {
			tm, err := envs.NewTMaze(nil, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				return err
			}
			_, err = tm.Step(4)
			return err
		}, Msg: "action 4 out of range"},
		{Name: "TMaze.FixContext out of range", Call: func() error { return new(envs.TMaze).FixContext(2) }, Msg: "context 2"},
		{Name: "NewTMaze bad config", Call: func() error { _, err := envs.NewTMaze(&envs.TMazeConfig{CueValidity: 2}, nil); return err }, Msg: "CueValidity 2"},
		{Name: "zero TMaze", Call: func() error {
			var tm envs.TMaze
			if err := tm.FixContext(envs.TMazeRewardRight); err != nil {
				return err
			}
			if o := tm.Reset(); o != envs.TMazeObsNone {
				return fmt.Errorf("first observation %d", o)
			}
			if tm.Config() != envs.DefaultTMazeConfig() || tm.Context() != envs.TMazeRewardRight {
				return errors.New("not the default T-maze with the fixed context")
			}
			if _, err := tm.Step(envs.TMazeRight); err != nil || !tm.Done() {
				return fmt.Errorf("right arm: %v, done %v", err, tm.Done())
			}
			return nil
		}, OK: "TMaze"},
	})
}
