package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/arbor-ai/arbor/internal/jsonread"
	"github.com/arbor-ai/arbor/internal/output"
)

// The bounds of a sweep's grid file (docs/cluster.md, "Bounds"), checked
// as the file is read, before anything of their size is allocated.
const (
	// MaxPoints is the most points a grid may have (the product of its
	// axes' numbers of values).
	MaxPoints = 1_000_000
	// MaxAxes is the most flags a grid may vary.
	MaxAxes = 64
	// MaxArgs is the most arguments of a grid's command.
	MaxArgs = 1000
)

// OutputFlags are the flags that write files or choose the form of the
// output, which a sweep fixes: a grid may not vary them, and its command
// may hold none of them but --json (the sweep gives --json itself). -h
// and -help ask for help, not for a run.
var OutputFlags = []string{"plot", "dot", "out", "shard", "shards", "resume", "csv", "json", "o", "truth", "subjects", "compare", "h", "help"}

// Grid is a sweep's grid file: a command and the values of its flags to
// cross.
type Grid struct {
	// Command is the command's arguments after "arbor", its fixed flags
	// among them.
	Command []string
	// Axes are the flags to vary; the points are the cartesian product
	// of their values, the last axis varying fastest.
	Axes []Axis
}

// Axis is one flag of a grid and its values.
type Axis struct {
	Flag   string
	Values []string          // as the flag takes them: a string as it is, a number or a boolean as written
	Raw    []json.RawMessage // as the grid writes them
}

// ParseGrid reads a grid file, {"command": [...], "grid": [{"flag":
// NAME, "values": [...]}, ...]}: one JSON object without a repeated key
// (at any depth), no other field, the command's arguments strings, the
// values strings, numbers or booleans, every flag named once, none of
// OutputFlags in the grid or (but --json) in the command, at most
// MaxArgs arguments, MaxAxes flags and MaxPoints points. Errors name the
// field ("grid[2] (seed) value 3: ..."); the command's own checks (its
// name, its flags) are the caller's.
func ParseGrid(data []byte) (*Grid, error) {
	if err := CheckJSON(data); err != nil {
		return nil, err
	}
	r := &jsonread.Reader{Data: data}
	if r.Peek() != '{' {
		return nil, fmt.Errorf("a %s, want an object", r.Kind())
	}
	var g Grid
	points := 1
	err := r.Object(func(key string, _ int) error {
		switch key {
		case "command":
			return g.readCommand(r)
		case "grid":
			return g.readAxes(r, &points)
		}
		return fmt.Errorf("unknown field %q (want command and grid)", output.Shorten(key, 40))
	})
	if err != nil {
		return nil, err
	}
	for _, a := range g.Command {
		if name, ok := flagName(a); ok && name != "json" && slices.Contains(OutputFlags, name) {
			return nil, fmt.Errorf("command: --%s does not go in a sweep's command (the sweep writes the --json summaries; it is sharded with its own --shard)", name)
		}
	}
	if len(g.Axes) == 0 {
		return nil, errors.New("grid: no flag to vary")
	}
	for i, ax := range g.Axes {
		switch {
		case !validFlag(ax.Flag):
			return nil, fmt.Errorf("grid[%d].flag %q: want a flag's name without dashes", i, output.Shorten(ax.Flag, 40))
		case slices.Contains(OutputFlags, ax.Flag):
			return nil, fmt.Errorf("grid[%d].flag %q: a sweep does not vary an output or shard flag (%s)", i, ax.Flag, strings.Join(OutputFlags, ", "))
		case len(ax.Values) == 0:
			return nil, fmt.Errorf("grid[%d] (%s): no values", i, ax.Flag)
		}
		for _, b := range g.Axes[:i] {
			if b.Flag == ax.Flag {
				return nil, fmt.Errorf("grid[%d].flag %q comes twice", i, ax.Flag)
			}
		}
	}
	return &g, nil
}

// flagName returns the name of the flag argument a ("--seed=1": seed).
func flagName(a string) (string, bool) {
	if !strings.HasPrefix(a, "-") || a == "--" || a == "-" {
		return "", false
	}
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name, true
}

// validFlag reports whether name can be a flag's name: letters, digits,
// '-', '_' and '.', not starting with '-'.
func validFlag(name string) bool {
	if name == "" || name[0] == '-' || len(name) > 100 {
		return false
	}
	for _, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func (g *Grid) readCommand(r *jsonread.Reader) error {
	if r.Peek() != '[' {
		return fmt.Errorf("command: a %s, want an array of strings", r.Kind())
	}
	return r.Array(func(i int) error {
		switch {
		case i == MaxArgs:
			return fmt.Errorf("command: more than %d arguments", MaxArgs)
		case r.Peek() != '"':
			return fmt.Errorf("command[%d]: a %s, want a string", i, r.Kind())
		}
		g.Command = append(g.Command, r.ReadString())
		return nil
	})
}

// readAxes reads the grid's axes; points is the product of the numbers
// of values so far, which no axis may take over MaxPoints.
func (g *Grid) readAxes(r *jsonread.Reader, points *int) error {
	if r.Peek() != '[' {
		return fmt.Errorf("grid: a %s, want an array of {\"flag\": NAME, \"values\": [...]}", r.Kind())
	}
	return r.Array(func(i int) error {
		if i == MaxAxes {
			return fmt.Errorf("grid: more than %d flags", MaxAxes)
		}
		if r.Peek() != '{' {
			return fmt.Errorf("grid[%d]: a %s, want {\"flag\": NAME, \"values\": [...]}", i, r.Kind())
		}
		var ax Axis
		name := func() string { return fmt.Sprintf("grid[%d] (%s)", i, output.Shorten(ax.Flag, 40)) }
		err := r.Object(func(key string, _ int) error {
			switch key {
			case "flag":
				if r.Peek() != '"' {
					return fmt.Errorf("grid[%d].flag: a %s, want a string", i, r.Kind())
				}
				ax.Flag = r.ReadString()
				return nil
			case "values":
				if r.Peek() != '[' {
					return fmt.Errorf("%s values: a %s, want an array", name(), r.Kind())
				}
				return r.Array(func(j int) error {
					if *points*(j+1) > MaxPoints {
						return fmt.Errorf("%s value %d: the grid would have more than %d points, over the limit", name(), j+1, MaxPoints)
					}
					start := jsonread.Space(r.Data, r.Pos)
					var text string
					switch r.Kind() {
					case "string":
						text = r.ReadString()
					case "number", "bool":
						r.Skip()
						text = string(r.Data[start:r.Pos])
					default:
						return fmt.Errorf("%s value %d: a %s, want a string, a number or true/false", name(), j+1, r.Kind())
					}
					ax.Values = append(ax.Values, text)
					ax.Raw = append(ax.Raw, json.RawMessage(r.Data[start:r.Pos]))
					return nil
				})
			}
			return fmt.Errorf("grid[%d]: unknown field %q (want flag and values)", i, output.Shorten(key, 40))
		})
		if err != nil {
			return err
		}
		*points *= max(1, len(ax.Values))
		g.Axes = append(g.Axes, ax)
		return nil
	})
}

// Points returns the number of points: at most MaxPoints.
func (g *Grid) Points() int {
	n := 1
	for _, ax := range g.Axes {
		n *= len(ax.Values)
	}
	return n
}

// Point returns point i's flags (--flag=value) and its values for the
// output line, the flags in the grid's order.
func (g *Grid) Point(i int) ([]string, output.Ordered) {
	idx := make([]int, len(g.Axes))
	for a := len(g.Axes) - 1; a >= 0; a-- {
		idx[a] = i % len(g.Axes[a].Values)
		i /= len(g.Axes[a].Values)
	}
	var args []string
	var o output.Ordered
	for a, ax := range g.Axes {
		args = append(args, "--"+ax.Flag+"="+ax.Values[idx[a]])
		o.Add(ax.Flag, ax.Raw[idx[a]])
	}
	return args, o
}

// CheckJSON checks that data is one JSON value (white space around it)
// in which no object repeats a key: a repeated key, which encoding/json
// takes silently (the last wins), is an error naming it and its path.
func CheckJSON(data []byte) error {
	if f, off := jsonread.Check(data); f != jsonread.Valid {
		return fmt.Errorf("not one JSON value (at byte %d)", off+1)
	}
	r := &jsonread.Reader{Data: data}
	var path []any // the keys and indices to the value being read
	var visit func() error
	visit = func() error {
		switch r.Peek() {
		case '{':
			var seen map[string]bool
			return r.Object(func(key string, _ int) error {
				if seen[key] {
					return fmt.Errorf("%sduplicate key %q", where(path), output.Shorten(key, 40))
				}
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[key] = true
				path = append(path, key)
				err := visit()
				path = path[:len(path)-1]
				return err
			})
		case '[':
			return r.Array(func(i int) error {
				if c := r.Peek(); c != '{' && c != '[' {
					r.Skip() // a scalar: nothing to check
					return nil
				}
				path = append(path, i)
				err := visit()
				path = path[:len(path)-1]
				return err
			})
		}
		r.Skip()
		return nil
	}
	return visit()
}

// where writes a path of keys and indices as "grid[0].flag: ".
func where(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(output.Shorten(p, 40))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return b.String() + ": "
}
