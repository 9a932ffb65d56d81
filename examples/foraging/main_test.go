package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/pomdp"
)

// TestSpecIsTheFile: the Go model and examples/pomdp/foraging.json, the
// file the tutorial runs the command line on, are the same model.
func TestSpecIsTheFile(t *testing.T) {
	f, err := pomdp.Load("../pomdp/foraging.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := pomdp.NewFactorised(Spec())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(m.FactorisedSpec(), f.FactorisedSpec()); d != "" {
		t.Errorf("Spec() and foraging.json differ (-go +file):\n%s", d)
	}
}

// TestSmellByDistance checks the smell modality against its description:
// for every position and food room, P(smell | position, food) is the row
// of the distance |position - food| (0: strong 0.9, 1: faint 0.8, 2: none
// 0.9), and eating happens exactly in the food's room.
func TestSmellByDistance(t *testing.T) {
	m, err := pomdp.NewFactorised(Spec())
	if err != nil {
		t.Fatal(err)
	}
	smell, eat := m.ModalityA(1), m.ModalityA(2)
	for pos := range 3 {
		for food := range 3 {
			d := pos - food
			if d < 0 {
				d = -d
			}
			want := [][3]float64{{0, 0.1, 0.9}, {0.2, 0.8, 0}, {0.9, 0.1, 0}}[d]
			for o := range 3 {
				if got := smell[(o*3+pos)*3+food]; got != want[o] {
					t.Errorf("P(smell %d | position %d, food %d) = %g, want %g", o, pos, food, got, want[o])
				}
			}
			if got, want := eat[(1*3+pos)*3+food], map[bool]float64{true: 1, false: 0}[pos == food]; got != want {
				t.Errorf("P(eat | position %d, food %d) = %g, want %g", pos, food, got, want)
			}
		}
	}
}

// TestBadSmell: a column of the smell matrix that does not sum to 1 is
// refused with the modality and the field named, as the tutorial shows.
func TestBadSmell(t *testing.T) {
	sp := Spec()
	sp.Modalities[1].A[0] += 0.1 // P(none | left, left): the column (left, left) sums to 1.1
	_, err := pomdp.NewFactorised(sp)
	const want = `pomdp: modality "smell": A: column [:][0][0] sums to 1.1, want 1 (tolerance 1e-6)`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
