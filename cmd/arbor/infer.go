package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/expfam"
	"github.com/arbor-ai/arbor/ffg"
	"github.com/arbor-ai/arbor/model"
	"github.com/arbor-ai/arbor/schedule"
)

// isInputError reports whether err is bad input that the library found: a
// model file's fault, or a planner's option given wrongly.
func isInputError(err error) bool {
	var me *model.Error
	var fe *agent.FlagError
	return errors.As(err, &me) || errors.As(err, &fe)
}

func loadModelArg(name string, fs *flag.FlagSet, args []string, stdout io.Writer, synopsis string) (*model.Model, string, error) {
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, helpText(fs, synopsis))
		return nil, "", err
	}
	if err != nil {
		return nil, "", err
	}
	if len(pos) != 1 {
		return nil, "", badInput("want one MODEL file, got %d arguments (usage: %s)", len(pos), synopsis)
	}
	data, err := readFile(pos[0], pos[0])
	if err != nil {
		return nil, "", err
	}
	m, err := model.Parse(pos[0], data)
	return m, pos[0], err
}

func runInfer(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("infer", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the result as JSON (every number in full precision)")
	digits := fs.Int("digits", 6, "significant digits of every posterior number in the human output (1..17)")
	dataFile := fs.String("data", "", "run the model on every data set of this file: one JSON object per line, variable name to an observed index or probability vector; one result per line")
	maxMin := fs.Float64("max-minutes", 10, "refuse a model whose run is estimated to take longer than this many minutes (the estimate is printed with the refusal)")
	m, file, err := loadModelArg("infer", fs, args, stdout, "arbor infer MODEL.json [--data FILE.jsonl] [--digits 6] [--max-minutes 10] [--json]")
	if err != nil {
		return err
	}
	if *digits < 1 || *digits > 17 {
		return badInput("--digits: %d, want 1..17", *digits)
	}
	if *asJSON && agent.Given(fs)["digits"] {
		return badInput("--digits: applies to the human output, not to --json (which writes every number in full precision)")
	}
	if !(*maxMin > 0) || math.IsInf(*maxMin, 0) {
		return badInput("--max-minutes: %v, want a finite number > 0", *maxMin)
	}
	if est := schedule.EstimateSeconds(m.Graph, &m.Settings); est > 60**maxMin {
		return badInput("%s: %d sweeps of %.3g multiply-adds would take about %s (estimated from the factors' sizes), over --max-minutes %g; raise --max-minutes or lower settings.iterations to run it anyway",
			file, m.Settings.MaxSweeps(), schedule.SweepWork(m.Graph), agent.Duration(est), *maxMin)
	}
	if *dataFile != "" {
		return inferData(m, *dataFile, *asJSON, *digits, *maxMin, stdout)
	}
	return inferModel(m, *asJSON, *digits, stdout)
}

// inferData runs the model on every data set of the file (one JSON object
// per line; blank lines are skipped) without rebuilding it
// (model.Model.Infer), and prints one result per data set: with --json the
// object of arbor infer --json, one per line; otherwise a block per data
// set headed by its line. A line that does not fit the model exits 2
// naming the file, the line and the variable.
func inferData(m *model.Model, file string, asJSON bool, digits int, maxMin float64, stdout io.Writer) error {
	limit, err := maxInput()
	if err != nil {
		return err
	}
	// --max-minutes counts every data set: a regular file is counted first
	// (one pass, nothing kept), so that a long job is refused before any
	// output; a pipe is counted as it is read.
	perSet := schedule.EstimateSeconds(m.Graph, &m.Settings)
	refuse := func(n int) error {
		return badInput("--data %s: %d data sets of about %s each would take about %s (estimated from the factors' sizes), over --max-minutes %g; raise --max-minutes or split the file",
			file, n, agent.Duration(perSet), agent.Duration(perSet*float64(n)), maxMin)
	}
	longest := 64 << 10 // the scanner's first buffer: a regular file's longest line
	if st, err := os.Stat(file); err == nil && st.Mode().IsRegular() {
		n, most, err := countDataLines(file, limit)
		longest = max(longest, min(most+1, 1<<30))
		if err != nil {
			return err
		}
		if perSet*float64(n) > 60*maxMin {
			return refuse(n)
		}
	}
	f, err := openInput(file)
	if err != nil {
		return badInput("--data %s: cannot read: %v", file, err)
	}
	defer f.Close()
	// Line by line: each data set is read, checked, inferred and written
	// before the next is read, so the first result comes before the last
	// line is read and memory does not grow with the lines. A bad line
	// exits 2 naming it, after the results of the lines before it.
	ctx := commandContext()
	sc := bufio.NewScanner(io.LimitReader(f, limit+1))
	sc.Buffer(make([]byte, 0, longest), int(min(limit, 1<<30))+1)
	read, lineNo, sets := int64(0), 0, 0
	for sc.Scan() {
		line := sc.Bytes()
		lineNo++
		read += int64(len(line)) + 1
		if read > limit+1 {
			return badInput("--data %s: larger than the limit of %s (set %s to raise it)", file, sizeText(limit), maxInputEnv)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		sets++
		if perSet*float64(sets) > 60*maxMin {
			return refuse(sets)
		}
		where := fmt.Sprintf("%s:%d", file, lineNo)
		d, err := m.ReadData(where, line)
		if err != nil {
			return err
		}
		// Infer and InferJSON check the data set first (Model.CheckData).
		// With --json, a long linear-Gaussian data set runs without a
		// graph of its elements (model.Model.InferJSON): the same line.
		var res *schedule.Result
		if asJSON {
			_, err = m.InferJSON(ctx, where, d, stdout)
		} else {
			res, err = m.Infer(ctx, where, d)
		}
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		if err != nil {
			return err
		}
		if !asJSON {
			printResult(stdout, m, res, where, digits)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return badInput("--data %s:%d: a line longer than the limit of %s (set %s to raise it)", file, lineNo+1, sizeText(limit), maxInputEnv)
		}
		return badInput("--data %s: cannot read: %v", file, err)
	}
	if read > limit {
		return badInput("--data %s: larger than the limit of %s (set %s to raise it)", file, sizeText(limit), maxInputEnv)
	}
	return nil
}

// countDataLines counts the non-blank lines of a data file in one pass,
// keeping nothing (a file over limit bytes is bad input), and measures
// its longest line.
func countDataLines(file string, limit int64) (n, longest int, err error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, 0, badInput("--data %s: cannot read: %v", file, err)
	}
	defer f.Close()
	r := io.LimitReader(f, limit+1)
	buf := make([]byte, 64<<10)
	total, blank, line := int64(0), true, 0
	for {
		k, err := r.Read(buf)
		for _, b := range buf[:k] {
			line++
			switch {
			case b == '\n':
				blank, longest, line = true, max(longest, line), 0
			case blank && b != ' ' && b != '\t' && b != '\r':
				blank = false
				n++
			}
		}
		total += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, badInput("--data %s: cannot read: %v", file, err)
		}
	}
	if total > limit {
		return 0, 0, badInput("--data %s: larger than the limit of %s (set %s to raise it)", file, sizeText(limit), maxInputEnv)
	}
	return n, max(longest, line), nil
}

// inferModel runs global VMP on a loaded model and prints the result. A
// fault of the model found while inferring (an invalid posterior, evidence
// of probability 0, a free energy that overflows) is bad input naming the
// file and the field (model.Model.RunError).
func inferModel(m *model.Model, asJSON bool, digits int, stdout io.Writer) error {
	ctx := commandContext()
	res, err := schedule.Run(ctx, m.Graph, &m.Settings)
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		return m.RunError(err)
	}
	if asJSON {
		return m.WriteOutput(stdout, res)
	}
	printResult(stdout, m, res, m.Name, digits)
	return nil
}

// printResult is the human output of one run: a status line headed by
// name, then every hidden variable's posterior in the model's order, an
// array's as a table (printArray).
func printResult(stdout io.Writer, m *model.Model, res *schedule.Result, name string, digits int) {
	status := "converged"
	if !res.Converged {
		status = "did not converge"
	}
	fmt.Fprintf(stdout, "%s: %s after %d sweeps, F = %.10g\n", name, status, res.Iterations, res.Final())
	if w := res.Warning(); w != "" {
		fmt.Fprintln(stdout, w)
	}
	arrays := m.Arrays()
	for i, a := 0, 0; i < len(m.Variables) || a < len(arrays); {
		if a < len(arrays) && arrays[a].First <= i {
			printArray(stdout, arrays[a], digits)
			i = arrays[a].First + len(arrays[a].Elements)
			a++
			continue
		}
		v := m.Variables[i]
		i++
		if v.Observed() {
			continue
		}
		p := model.PosteriorOf(v)
		switch {
		case p.P != nil:
			fmt.Fprintf(stdout, "  %-12s categorical  p = %s\n", v.Name(), fmtNested(p.P, digits))
		case p.Alpha != nil:
			fmt.Fprintf(stdout, "  %-12s dirichlet    alpha = %s\n", v.Name(), fmtNested(p.Alpha, digits))
		case p.Mv != nil:
			fmt.Fprintf(stdout, "  %-12s %-12s %s\n", v.Name(), p.Family, p.Mv.Text(digits))
		case p.Mean != nil:
			fmt.Fprintf(stdout, "  %-12s normal       mean = %s, variance = %s\n", v.Name(),
				strconv.FormatFloat(*p.Mean, 'g', digits, 64), strconv.FormatFloat(*p.Variance, 'g', digits, 64))
		default:
			fmt.Fprintf(stdout, "  %-12s gamma        shape = %s, rate = %s\n", v.Name(),
				strconv.FormatFloat(*p.Shape, 'g', digits, 64), strconv.FormatFloat(*p.Rate, 'g', digits, 64))
		}
	}
}

// Arrays of more than arrayRows elements print their first and last
// arrayEnds rows.
const arrayRows, arrayEnds = 12, 5

// printArray prints a listed array variable (model.ArrayVariable.Listed)
// as a table: a row per element, its index then its posterior's numbers
// (categorical: the probabilities; normal: mean and sd; gamma: shape,
// rate and mean; dirichlet: alpha), "observed" for an observed element;
// a long array's middle rows are left out, counted on a line of their own.
func printArray(stdout io.Writer, a model.ArrayVariable, digits int) {
	if !a.Listed() {
		return
	}
	fmt.Fprintf(stdout, "  %-12s %-12s array of size %v\n", a.Name, a.Family, a.Size)
	if len(a.Elements) == 0 {
		return
	}
	head := []string{"index"}
	switch a.Family {
	case expfam.CategoricalFamily:
		for k := range a.Elements[0].Probs() {
			head = append(head, fmt.Sprintf("p[%d]", k))
		}
	case expfam.NormalFamily:
		head = append(head, "mean", "sd")
	case expfam.GammaFamily:
		head = append(head, "shape", "rate", "mean")
	case expfam.MvNormalFamily, expfam.WishartFamily, expfam.BetaFamily:
		head = append(head, model.MvColumns(a.Family, a.Elements[0].Shape())...)
	default:
		head = append(head, "alpha")
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', digits, 64) }
	row := func(v *ffg.Variable) []string {
		name := v.Name()
		r := []string{name[len(a.Name)+1 : len(name)-1]}
		if v.Observed() {
			return append(r, "observed")
		}
		p := model.PosteriorOf(v)
		switch {
		case p.P != nil:
			for _, x := range p.P {
				r = append(r, num(x))
			}
		case p.Mean != nil:
			r = append(r, num(*p.Mean), num(math.Sqrt(*p.Variance)))
		case p.Shape != nil:
			r = append(r, num(*p.Shape), num(*p.Rate), num(*p.Shape / *p.Rate))
		case p.Mv != nil:
			r = append(r, p.Mv.Row(num)...)
		default:
			r = append(r, fmtNested(p.Alpha, digits))
		}
		return r
	}
	n, skip := len(a.Elements), 0
	rows := [][]string{head}
	for k := 0; k < n; k++ {
		if n > arrayRows && k == arrayEnds {
			skip, k = n-2*arrayEnds, n-arrayEnds
		}
		rows = append(rows, row(a.Elements[k]))
	}
	width := make([]int, len(head))
	for _, r := range rows {
		for c, cell := range r {
			width[c] = max(width[c], len(cell))
		}
	}
	for i, r := range rows {
		if skip > 0 && i == 1+arrayEnds {
			fmt.Fprintf(stdout, "    ... %d more\n", skip)
		}
		line := make([]byte, 0, 80)
		for c, cell := range r {
			if c > 0 {
				line = append(line, "  "...)
			}
			line = append(append(line, strings.Repeat(" ", width[c]-len(cell))...), cell...)
		}
		fmt.Fprintf(stdout, "    %s\n", line)
	}
}

// fmtNested formats a number, a []float64 or nested []any of them with
// digits significant digits, arrays as [a b c].
func fmtNested(x any, digits int) string {
	switch v := x.(type) {
	case float64:
		return strconv.FormatFloat(v, 'g', digits, 64)
	case []float64:
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = strconv.FormatFloat(f, 'g', digits, 64)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = fmtNested(e, digits)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(x)
}

type jsonBuffer struct{ b []byte }

func (j *jsonBuffer) Write(p []byte) (int, error) { j.b = append(j.b, p...); return len(p), nil }
func (j *jsonBuffer) String() string              { return string(j.b) }
