// Package words holds word lists that more than one reading of a note
// shares: the restatement check compares numbers written out like digits,
// and the conversation profile marks a turn that carries a number.
package words

// numbers are numbers written out.
var numbers = map[string]bool{
	"zero": true, "one": true, "two": true, "three": true, "four": true, "five": true, "six": true,
	"seven": true, "eight": true, "nine": true, "ten": true, "eleven": true, "twelve": true,
	"twenty": true, "thirty": true, "forty": true, "fifty": true, "hundred": true, "thousand": true,
	"first": true, "second": true, "third": true, "once": true, "twice": true, "half": true,
	"dozen": true, "million": true, "billion": true,
}

// Number says whether a lower-case word is a number written out.
func Number(w string) bool { return numbers[w] }
