package envs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arbor-ai/arbor/agent"
)

// Maze actions (docs/formats.md). They index the first axis of
// MazeModel.B and the argument of Maze.Step and Maze.Next.
const (
	Up    = 0 // row - 1
	Down  = 1 // row + 1
	Left  = 2 // column - 1
	Right = 3 // column + 1
	Idle  = 4 // stay
)

// numMazeActions is the number of maze actions, Up..Idle.
const numMazeActions = 5

// ActionNames are the names of the maze actions, indexed by action.
// Treat it as read-only; MazeModel.Actions holds a copy.
var ActionNames = []string{"UP", "DOWN", "LEFT", "RIGHT", "IDLE"}

// Maze file limits.
const (
	// MinMazeSize is the smallest number of rows or columns a maze file may
	// declare: the walled border takes two of each.
	MinMazeSize = 3
	// MaxMazeSize is the largest number of rows or columns a maze file may
	// declare.
	MaxMazeSize = 1000
	// maxLineBytes bounds the length of one line of a maze file.
	maxLineBytes = 64 << 10
)

// Maze cell characters of the file format.
const (
	cellWall  = 'W'
	cellFree  = '.'
	cellStart = 'S'
	cellExit  = 'E'
)

// ParseError is a fault in a maze file. Line and Column are 1-based
// positions in the file (line 1 is the header); a zero Column means the
// fault concerns the whole line and a zero Line the whole file.
type ParseError struct {
	Line, Column int
	Msg          string
}

// Error formats the fault as "line L, column C: msg", "line L: msg" or
// "msg", depending on which positions are known.
func (e *ParseError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	default:
		return e.Msg
	}
}

// Maze is the grid-world environment of docs/formats.md, the maze of
// the BTAI paper's experiments.
//
// Hidden states are the free cells (S and E included) numbered in row-major
// order. The observation in a state is its Manhattan distance to the exit
// E, ignoring walls; there are NumObservations() = rows+cols-5 of them (see
// NumObservations). The actions Up, Down, Left, Right and Idle move the
// agent by one cell; a move into a wall stays where it is. The process is
// deterministic.
//
// A Maze is created by ParseMaze or LoadMaze, standing on S. Its layout
// never changes; only Reset and Step change the current state, and they
// must not be called concurrently with each other or with State, Position
// and Done.
//
// The zero Maze has no cells and is not usable: its Step, ShortestPath,
// Model and POMDP return an error, its Reset and Position panic (they have
// no error to return), and NumStates and NumObservations are 0.
type Maze struct {
	rows, cols int
	cells      []byte // row-major cells: cellWall, cellFree, cellStart or cellExit
	stateOf    []int  // cell index -> state, or -1 for a wall
	cellOf     []int  // state -> cell index
	obs        []int  // state -> Manhattan distance to the exit
	next       []int  // state*numMazeActions + action -> next state
	start      int    // state of S
	exit       int    // state of E
	state      int    // current state
}

// LoadMaze reads a maze file (format: see ParseMaze). Errors are prefixed
// with path; a *ParseError can be recovered with errors.As.
func LoadMaze(path string) (*Maze, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := ParseMaze(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ParseMaze reads a maze in the file format of docs/formats.md:
//
//	7 8
//	WWWWWWWW
//	W.....EW
//	W.WWWW.W
//	W....W.W
//	W.WW.W.W
//	WS.....W
//	WWWWWWWW
//
// The first line holds the number of rows and columns, two integers in
// [MinMazeSize, MaxMazeSize] separated by white space. Then come exactly
// rows lines of the characters W (wall), . (free), S (start) and E (exit).
// A line shorter than cols is padded with walls. Lines may end in "\n" or
// "\r\n"; the final newline and trailing blank lines are optional.
//
// ParseMaze requires the maze to be enclosed by walls: a free cell (., S
// or E) in the first or last row or column is an error. This keeps every
// Manhattan distance between free cells at most (rows-3)+(cols-3), so that
// every observation fits in the rows+cols-5 values of docs/formats.md (see
// NumObservations), and no move can leave the grid.
//
// Any fault is a *ParseError naming the 1-based line and column of the file:
// a bad header, a row longer than cols, a character other than W . S E, a
// free cell on the border, a second S or E, a missing row, a non-blank line
// after the last row, or a maze with no S or no E. A nil r is an error.
// ParseMaze never panics.
func ParseMaze(r io.Reader) (*Maze, error) {
	if r == nil {
		return nil, errors.New("envs: ParseMaze: nil reader")
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1024), maxLineBytes)
	line := 0
	// read returns the next line without its line ending.
	read := func() ([]byte, bool, error) {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				if errors.Is(err, bufio.ErrTooLong) {
					return nil, false, &ParseError{Line: line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLineBytes)}
				}
				return nil, false, fmt.Errorf("line %d: %w", line+1, err)
			}
			return nil, false, nil
		}
		line++
		// bufio.ScanLines drops one trailing "\r"; drop any left so that
		// "\r\r\n" endings do not count as characters either.
		return bytes.TrimRight(sc.Bytes(), "\r"), true, nil
	}

	header, ok, err := read()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &ParseError{Line: 1, Msg: `missing header "rows cols"`}
	}
	rows, cols, err := parseHeader(string(header))
	if err != nil {
		return nil, err
	}

	m := &Maze{rows: rows, cols: cols, start: -1, exit: -1}
	// Cells grow row by row so that a header promising a huge maze costs
	// little until its rows arrive.
	m.cells = make([]byte, 0, min(rows*cols, 1<<12))
	var startLine, startCol, exitLine, exitCol int
	for i := range rows {
		text, ok, err := read()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &ParseError{Line: line + 1, Msg: fmt.Sprintf("missing row %d of %d (the file ends after line %d)", i+1, rows, line)}
		}
		for j := 0; j < len(text); j++ {
			c := text[j]
			if j >= cols {
				return nil, &ParseError{Line: line, Column: j + 1, Msg: fmt.Sprintf("row longer than %d columns", cols)}
			}
			switch c {
			case cellWall:
				m.cells = append(m.cells, c)
				continue
			case cellFree, cellStart, cellExit:
			default:
				// Every valid character is ASCII, so the first invalid byte
				// starts the first invalid rune and j+1 is its column.
				r, _ := utf8.DecodeRune(text[j:])
				return nil, &ParseError{Line: line, Column: j + 1, Msg: fmt.Sprintf("invalid character %q (want W, ., S or E)", r)}
			}
			if i == 0 || i == rows-1 || j == 0 || j == cols-1 {
				return nil, &ParseError{Line: line, Column: j + 1, Msg: fmt.Sprintf("%q on the border: the maze must be enclosed by walls", rune(c))}
			}
			switch c {
			case cellStart:
				if startLine != 0 {
					return nil, &ParseError{Line: line, Column: j + 1, Msg: fmt.Sprintf("second start S (the first is at line %d, column %d)", startLine, startCol)}
				}
				startLine, startCol = line, j+1
			case cellExit:
				if exitLine != 0 {
					return nil, &ParseError{Line: line, Column: j + 1, Msg: fmt.Sprintf("second exit E (the first is at line %d, column %d)", exitLine, exitCol)}
				}
				exitLine, exitCol = line, j+1
			}
			m.cells = append(m.cells, c)
		}
		for j := len(text); j < cols; j++ {
			m.cells = append(m.cells, cellWall)
		}
	}
	for {
		text, ok, err := read()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if len(bytes.TrimSpace(text)) != 0 {
			return nil, &ParseError{Line: line, Msg: fmt.Sprintf("extra line after the %d rows declared on line 1", rows)}
		}
	}
	if startLine == 0 {
		return nil, &ParseError{Msg: fmt.Sprintf("no start S in the rows (lines 2-%d)", rows+1)}
	}
	if exitLine == 0 {
		return nil, &ParseError{Msg: fmt.Sprintf("no exit E in the rows (lines 2-%d)", rows+1)}
	}
	if err := m.index(); err != nil {
		return nil, err
	}
	return m, nil
}

// parseHeader parses the first line of a maze file.
func parseHeader(header string) (rows, cols int, err error) {
	type field struct {
		text string
		col  int
	}
	var fields []field
	for j := 0; j < len(header); {
		if header[j] == ' ' || header[j] == '\t' {
			j++
			continue
		}
		k := j
		for k < len(header) && header[k] != ' ' && header[k] != '\t' {
			k++
		}
		fields = append(fields, field{header[j:k], j + 1})
		j = k
	}
	if len(fields) != 2 {
		return 0, 0, &ParseError{Line: 1, Msg: fmt.Sprintf(`header must be "rows cols", got %q`, header)}
	}
	var vals [2]int
	for i, name := range [2]string{"rows", "cols"} {
		f := fields[i]
		v, err := strconv.Atoi(f.text)
		switch {
		case errors.Is(err, strconv.ErrRange):
			return 0, 0, &ParseError{Line: 1, Column: f.col, Msg: fmt.Sprintf("%s %s out of range [%d, %d]", name, f.text, MinMazeSize, MaxMazeSize)}
		case err != nil:
			return 0, 0, &ParseError{Line: 1, Column: f.col, Msg: fmt.Sprintf("%s %q is not an integer", name, f.text)}
		case v < MinMazeSize || v > MaxMazeSize:
			return 0, 0, &ParseError{Line: 1, Column: f.col, Msg: fmt.Sprintf("%s %d out of range [%d, %d]", name, v, MinMazeSize, MaxMazeSize)}
		}
		vals[i] = v
	}
	return vals[0], vals[1], nil
}

// index numbers the free cells and tabulates observations and transitions.
func (m *Maze) index() error {
	m.stateOf = make([]int, len(m.cells))
	for k, c := range m.cells {
		if c == cellWall {
			m.stateOf[k] = -1
			continue
		}
		s := len(m.cellOf)
		m.stateOf[k] = s
		m.cellOf = append(m.cellOf, k)
		switch c {
		case cellStart:
			m.start = s
		case cellExit:
			m.exit = s
		}
	}
	n := len(m.cellOf)
	er, ec := m.CellOf(m.exit)
	m.obs = make([]int, n)
	m.next = make([]int, n*numMazeActions)
	for s, k := range m.cellOf {
		r, c := k/m.cols, k%m.cols
		d := abs(r-er) + abs(c-ec)
		if d >= m.NumObservations() {
			// Unreachable while ParseMaze requires a walled border; kept so
			// that a broken invariant is an error, never a wrong value.
			return &ParseError{Line: r + 2, Column: c + 1, Msg: fmt.Sprintf("distance %d to the exit exceeds the largest observation %d", d, m.NumObservations()-1)}
		}
		m.obs[s] = d
		for u := range numMazeActions {
			m.next[s*numMazeActions+u] = m.move(s, r, c, u)
		}
	}
	m.state = m.start
	return nil
}

// move returns the state reached from state s at (r, c) by action u.
func (m *Maze) move(s, r, c, u int) int {
	switch u {
	case Up:
		r--
	case Down:
		r++
	case Left:
		c--
	case Right:
		c++
	}
	if t, ok := m.StateOf(r, c); ok {
		return t
	}
	return s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Clone returns a maze with the same layout and its own current state
// (the layout, which never changes, is shared), so that several agents can
// walk the same maze at once.
func (m *Maze) Clone() *Maze {
	c := *m
	return &c
}

// Rows returns the number of rows of the grid, walls included.
func (m *Maze) Rows() int { return m.rows }

// Cols returns the number of columns of the grid, walls included.
func (m *Maze) Cols() int { return m.cols }

// NumStates returns the number of free cells (S and E included).
func (m *Maze) NumStates() int { return len(m.cellOf) }

// NumActions returns 5: Up, Down, Left, Right and Idle.
func (m *Maze) NumActions() int { return numMazeActions }

// NumObservations returns rows+cols-5, the number of possible Manhattan
// distances to the exit (docs/formats.md). Free cells lie in the
// interior rows 1..rows-2 and columns 1..cols-2 (ParseMaze requires a walled
// border), so the largest distance between two of them is
// (rows-3)+(cols-3) and the distances 0..rows+cols-6 take rows+cols-5
// values. Observation indices equal distances. The zero Maze has none.
func (m *Maze) NumObservations() int {
	if m.cellOf == nil {
		return 0
	}
	return m.rows + m.cols - 5
}

// Start returns the state of the start cell S.
func (m *Maze) Start() int { return m.start }

// Exit returns the state of the exit cell E.
func (m *Maze) Exit() int { return m.exit }

// State returns the current state.
func (m *Maze) State() int { return m.state }

// Position returns the row and column (0-based, walls included) of the
// current state. It panics on the zero Maze, which has no cells.
func (m *Maze) Position() (row, col int) { return m.CellOf(m.state) }

// StateOf returns the state of the cell at row, col (0-based) and true, or
// -1 and false if the cell is a wall or outside the grid.
func (m *Maze) StateOf(row, col int) (int, bool) {
	if row < 0 || row >= m.rows || col < 0 || col >= m.cols {
		return -1, false
	}
	s := m.stateOf[row*m.cols+col]
	return s, s >= 0
}

// CellOf returns the row and column (0-based) of state. It panics if state
// is not in [0, NumStates()).
func (m *Maze) CellOf(state int) (row, col int) {
	m.checkState(state)
	k := m.cellOf[state]
	return k / m.cols, k % m.cols
}

// Next returns the state reached from state by action: the neighbouring
// cell in the action's direction, or state itself if that cell is a wall or
// the action is Idle. It panics if state or action is out of range.
func (m *Maze) Next(state, action int) int {
	m.checkState(state)
	if action < 0 || action >= numMazeActions {
		panic(fmt.Sprintf("envs: action %d out of range [0, %d)", action, numMazeActions))
	}
	return m.next[state*numMazeActions+action]
}

// Observation returns the observation emitted in state: its Manhattan
// distance to the exit, in [0, NumObservations()). It panics if state is
// out of range.
func (m *Maze) Observation(state int) int {
	m.checkState(state)
	return m.obs[state]
}

func (m *Maze) checkState(state int) {
	if state < 0 || state >= len(m.cellOf) {
		panic(fmt.Sprintf("envs: state %d out of range [0, %d)", state, len(m.cellOf)))
	}
}

// Reset puts the agent on S and returns the observation there. It panics
// on the zero Maze, which has no S (a programming error: ParseMaze and
// LoadMaze return an error instead of an unusable maze).
func (m *Maze) Reset() int {
	if m.cellOf == nil {
		panic("envs: Maze.Reset: the zero Maze has no cells (use ParseMaze or LoadMaze)")
	}
	m.state = m.start
	return m.obs[m.state]
}

// Step moves the agent by action (see Next) and returns the observation in
// the new state. An action outside [0, 5) is an error and the agent stays.
func (m *Maze) Step(action int) (int, error) {
	if m.cellOf == nil {
		return 0, errZeroMaze
	}
	if action < 0 || action >= numMazeActions {
		return 0, fmt.Errorf("envs: maze action %d out of range [0, %d)", action, numMazeActions)
	}
	m.state = m.next[m.state*numMazeActions+action]
	return m.obs[m.state], nil
}

// errZeroMaze is the error of the methods of the zero Maze.
var errZeroMaze = errors.New("envs: the zero Maze has no cells (use ParseMaze or LoadMaze)")

// Done reports whether the agent stands on the exit E.
func (m *Maze) Done() bool { return m.state == m.exit }

// ShortestPath returns the least number of actions that lead from S to E,
// found by breadth-first search over Next. It is an error if E cannot be
// reached from S, and on the zero Maze.
func (m *Maze) ShortestPath() (int, error) {
	if m.cellOf == nil {
		return 0, errZeroMaze
	}
	dist := m.distancesFrom(m.start)
	if dist[m.exit] < 0 {
		return 0, errors.New("envs: the exit E cannot be reached from the start S")
	}
	return dist[m.exit], nil
}

// distancesFrom returns the number of actions from src to every state by
// breadth-first search, -1 for states that cannot be reached.
func (m *Maze) distancesFrom(src int) []int {
	dist := make([]int, m.NumStates())
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := []int{src}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for u := range numMazeActions {
			t := m.next[s*numMazeActions+u]
			if dist[t] < 0 {
				dist[t] = dist[s] + 1
				queue = append(queue, t)
			}
		}
	}
	return dist
}

// Render draws the grid, one line per row ending in "\n", with every free
// cell visited by path (a list of states) marked '*'; S and E keep their
// letters. States out of range are ignored.
func (m *Maze) Render(path []int) string {
	grid := make([]byte, len(m.cells))
	copy(grid, m.cells)
	for _, s := range path {
		if s < 0 || s >= len(m.cellOf) {
			continue
		}
		if k := m.cellOf[s]; grid[k] == cellFree {
			grid[k] = '*'
		}
	}
	var b strings.Builder
	b.Grow(m.rows * (m.cols + 1))
	for r := range m.rows {
		b.Write(grid[r*m.cols : (r+1)*m.cols])
		b.WriteByte('\n')
	}
	return b.String()
}

// String returns the maze in its file format, with short rows padded, so
// that ParseMaze(strings.NewReader(m.String())) yields the same maze.
func (m *Maze) String() string {
	return strconv.Itoa(m.rows) + " " + strconv.Itoa(m.cols) + "\n" + m.Render(nil)
}

// Maze is an environment of the agents.
var _ agent.Environment = (*Maze)(nil)
