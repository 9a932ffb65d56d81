package model

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestFactorListKeepsEveryField: a factor that sets any one field of its
// spec, at any depth, comes back from the list as it went in, whether the
// list keeps it in a small record or in full; and the common factors of a
// written-out file are kept small.
func TestFactorListKeepsEveryField(t *testing.T) {
	var variants []factorSpec
	var paths []string
	var walk func(v reflect.Value, path string, set func())
	// walk calls set once for every leaf of v (a field that is not a
	// struct), with the leaf made non-zero, then zero again.
	walk = func(v reflect.Value, path string, set func()) {
		for i := range v.NumField() {
			f := v.Field(i)
			f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem() // unexported fields too
			p := path + "." + v.Type().Field(i).Name
			if f.Kind() == reflect.Struct {
				walk(f, p, set)
				continue
			}
			switch f.Kind() {
			case reflect.Bool:
				f.SetBool(true)
			case reflect.String:
				f.SetString("s")
			case reflect.Int, reflect.Int32, reflect.Int64:
				f.SetInt(1)
			case reflect.Slice:
				f.Set(reflect.MakeSlice(f.Type(), 1, 1))
			case reflect.Pointer:
				f.Set(reflect.New(f.Type().Elem()))
			default:
				t.Fatalf("%s: a field of kind %s that the test does not set", p, f.Kind())
			}
			paths = append(paths, p)
			set()
			f.Set(reflect.Zero(f.Type()))
		}
	}
	var fs factorSpec
	walk(reflect.ValueOf(&fs).Elem(), "factorSpec", func() { variants = append(variants, fs) })
	if len(variants) < 40 {
		t.Fatalf("%d fields found, want every field of factorSpec (at least 40)", len(variants))
	}
	// A normal factor of a written-out file, and a transition.
	name := "x0"
	normal := factorSpec{Node: "normal", Out: "x1", Mean: jsonMean{set: true, v: jsonValue{set: true, name: &name}}}
	normal.PrecisionNum = jsonValue{set: true}
	transition := factorSpec{Node: "transition", Out: "s1", In: []string{"s0"}, Matrix: jsonValue{set: true}}
	var l factorList
	const rounds = 7 // past a chunk of the full records
	for range rounds {
		for i := range variants {
			l.add(&variants[i])
		}
		l.add(&normal)
		l.add(&transition)
	}
	if l.nFull <= fullChunk {
		t.Fatalf("%d factors kept in full, want more than a chunk (%d)", l.nFull, fullChunk)
	}
	k := 0
	for range rounds {
		for i := range variants {
			if got := l.at(k); !reflect.DeepEqual(got, variants[i]) {
				t.Fatalf("factor %d with %s set: got back %+v, want %+v", k, paths[i], got, variants[i])
			}
			k++
		}
		for _, want := range []factorSpec{normal, transition} {
			if got := l.at(k); !reflect.DeepEqual(got, want) {
				t.Fatalf("factor %d: got back %+v, want %+v", k, got, want)
			}
			if l.recs[k].full >= 0 {
				t.Errorf("factor %d (%s) kept in full, want a small record", k, want.Node)
			}
			k++
		}
	}
	if l.len() != k {
		t.Errorf("len() = %d, want %d", l.len(), k)
	}
}
