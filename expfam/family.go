package expfam

import (
	"fmt"
	"strconv"
)

// Family identifies an exponential family.
type Family int

// The families of arbor.
const (
	CategoricalFamily Family = iota + 1
	DirichletFamily
	GammaFamily
)

var familyNames = [...]string{
	CategoricalFamily: "categorical",
	DirichletFamily:   "dirichlet",
	GammaFamily:       "gamma",
}

// String returns the family's name as used in model files: "categorical",
// "dirichlet" or "gamma". An unknown value gives "Family(n)".
func (f Family) String() string {
	if f >= CategoricalFamily && int(f) < len(familyNames) {
		return familyNames[f]
	}
	return "Family(" + strconv.Itoa(int(f)) + ")"
}

// ParseFamily returns the family named s (exactly as String spells it). The
// error for an unknown name quotes it and lists the valid names.
func ParseFamily(s string) (Family, error) {
	for f := CategoricalFamily; int(f) < len(familyNames); f++ {
		if familyNames[f] == s {
			return f, nil
		}
	}
	return 0, fmt.Errorf("expfam: unknown family %q (valid: categorical, dirichlet, gamma)", s)
}
