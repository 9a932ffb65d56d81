package behaviour

// MaxJSONExtra is the largest number of distinct extra keys in JSON lines.
// Rows may name new keys as they go and each row keeps a value for every
// key named so far; the bound keeps memory proportional to the input.
const MaxJSONExtra = 64

// Defaults of Options.
const (
	DefaultMaxBytes     = 64 << 20 // 64 MiB: a file
	DefaultMaxLineBytes = 1 << 20  // 1 MiB: a line
)

// Options bounds what a Reader reads. Nil options, and zero or negative
// fields, mean the defaults.
type Options struct {
	// MaxBytes bounds the bytes read from the input: a longer input is an
	// error, not a truncation (DefaultMaxBytes).
	MaxBytes int64
	// MaxLineBytes bounds the length of one line, its newline excluded
	// (DefaultMaxLineBytes).
	MaxLineBytes int
}

// SubjectRecord is the recorded behaviour of one subject.
type SubjectRecord struct {
	Subject string
	Trials  []TrialRecord // in file order, trial numbers increasing
	// ExtraColumns names the extra columns whose values TrialRecord.Extra
	// holds, in order; nil without extra columns.
	ExtraColumns []string
}

// TrialRecord is one recorded trial: the observations o_0..o_T and the T
// actions between them, ready for agent.Replay.
type TrialRecord struct {
	Trial int // the trial number, >= 1
	// Obs holds the joint observation index of each step
	// (pomdp.Model.EncodeObs of its outcomes).
	Obs []int
	// Outcomes holds each step's outcome per modality.
	Outcomes [][]int
	// Actions holds the joint action index (the controls of the
	// controllable factors, the first varying slowest,
	// pomdp.Model.DecodeAction) taken after each step but the last:
	// len(Obs)-1 entries, -1 for a missed response (NA). A model without a
	// controllable factor has the single action 0.
	Actions []int
	// Lines holds the 1-based source line of each step's row.
	Lines []int
	// Extra holds each step's values of the subject's ExtraColumns; nil
	// without extra columns.
	Extra [][]string
}
