// Package nodetest checks a factor's VMP messages against its average
// energy.
//
// For a factor with log-density linear in each neighbour's sufficient
// statistics, the conjugate VMP message to neighbour k is the gradient of
// E_q[ln f] = -AverageEnergy with respect to that neighbour's expected
// statistics (Winn & Bishop; paper eq. 6). CheckMessages computes that
// gradient by central finite differences and compares it with the factor's
// message, entry by entry. Non-conjugate nodes whose rules are gradients of
// an approximate average energy (nodes.Softmax) pass the same check.
package nodetest

import (
	"fmt"
	"math"

	"github.com/arbor-ai/arbor/messages"
)

// Factor is the part of ffg.Factor and ffg.Messenger the check needs.
type Factor interface {
	Kind() string
	Interfaces() []messages.Interface
	AverageEnergy(stats [][]float64) float64
	Message(dst []float64, k int, stats [][]float64) error
}

// CheckMessages compares, for every interface k and entry i, the message
// Message(k)[i] with -(AverageEnergy(stats + h e_ki) - AverageEnergy(stats -
// h e_ki)) / 2h. Entries whose message is -Inf (a log of zero) are checked
// for an infinite energy gradient instead. It returns an error describing
// the first mismatch beyond tol (absolute, scaled by max(1, |message|)).
// stats is not modified.
func CheckMessages(f Factor, stats [][]float64, h, tol float64) error {
	ifs := f.Interfaces()
	if len(stats) != len(ifs) {
		return fmt.Errorf("nodetest: %s: %d statistics for %d interfaces", f.Kind(), len(stats), len(ifs))
	}
	work := make([][]float64, len(stats))
	for k := range stats {
		work[k] = append([]float64(nil), stats[k]...)
	}
	for k, it := range ifs {
		msg := make([]float64, len(stats[k]))
		if err := f.Message(msg, k, work); err != nil {
			return fmt.Errorf("nodetest: %s: interface %q: %w", f.Kind(), it.Name, err)
		}
		for i := range msg {
			x := work[k][i]
			work[k][i] = x + h
			up := f.AverageEnergy(work)
			work[k][i] = x - h
			down := f.AverageEnergy(work)
			work[k][i] = x
			fd := -(up - down) / (2 * h)
			if math.IsInf(msg[i], -1) {
				if !math.IsInf(up, 0) && !math.IsNaN(up) && !math.IsInf(down, 0) && !math.IsNaN(down) {
					return fmt.Errorf("nodetest: %s: interface %q entry %d: message -Inf but finite energy", f.Kind(), it.Name, i)
				}
				continue
			}
			if d := math.Abs(fd - msg[i]); !(d <= tol*math.Max(1, math.Abs(msg[i]))) {
				return fmt.Errorf("nodetest: %s: interface %q entry %d: message %.12g, finite difference %.12g", f.Kind(), it.Name, i, msg[i], fd)
			}
		}
	}
	return nil
}
