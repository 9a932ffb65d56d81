package output

import "strings"

// libraryPackages are the arbor library packages whose errors start with
// their name ("pomdp: ", docs/reliability.md, "Error messages").
var libraryPackages = []string{
	"aci", "agent", "behaviour", "btai", "envs", "expfam", "ffg", "fit",
	"messages", "model", "nodes", "pomdp", "schedule", "si",
}

// Reason is err's message without the prefix of the library package that
// returned it ("pomdp: B[0]: ..." reads "B[0]: ..."): the command line
// puts its own context in front (the command, the flag, the file), and
// names no packages. Only the first prefix goes; a deeper one, of an
// error passed up from another package, stays.
func Reason(err error) string {
	msg := err.Error()
	for _, p := range libraryPackages {
		if rest, ok := strings.CutPrefix(msg, p+": "); ok {
			return rest
		}
	}
	return msg
}
