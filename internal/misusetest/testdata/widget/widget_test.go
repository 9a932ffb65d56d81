package widget

// Hidden is in a test file, whose doc comments are not read.
func Hidden() {}
