package abd

import (
	"strings"

	"github.com/affine-ledger/ledger/envs/abd/lang"
)

// Prompt texts, verbatim from spec/envs/abd.md, "Prompt".
const (
	SystemPrompt = "You are a careful reasoner. Work the puzzle out however you like, then give your final answer as a list of integers inside <answer></answer> tags, for example <answer>[3, 1, 4]</answer>."

	// promptIntro opens every user prompt; Solve recognises the env by it.
	promptIntro = "Find an input for the following program in a small list language."

	languageText = `The program reads a list of integers and runs its instructions from top to bottom, each on the list the one before it produced:
- map add C: add C to every element.
- map mul C: multiply every element by C.
- reverse: reverse the order of the list.
- sort asc: sort into ascending order. sort desc: sort into descending order.
- filter even, filter odd: keep only the even elements (or only the odd ones), in order. 0 is even; -3 is odd.
- filter gt C, filter lt C: keep only the elements greater than C (or less than C), in order.
- take K: keep the first K elements (the whole list if it is shorter).
- drop K: remove the first K elements (all of them if the list is shorter).
- step K: keep the elements at positions 0, K, 2K, ... (the first element, then every K-th one after it).
The input may have at most 64 elements. Every input value, and every value the program computes, must be between -1000000 and 1000000; otherwise the program fails.`

	programHeader = "Program:\n```\n"
	programFooter = "\n```\n\n"
	outputHeader  = "When the program ran on a hidden input list, its output was:\n"
	promptClosing = "\n\nGive any input list on which the program outputs exactly this list; it need not be the hidden input. Answer with the list inside <answer></answer> tags, for example <answer>[3, 1, 4]</answer>."
)

func userPrompt(p lang.Program, output []int64) string {
	var b strings.Builder
	b.WriteString(promptIntro + "\n\n")
	b.WriteString(languageText + "\n\n")
	b.WriteString(programHeader + p.String() + programFooter)
	b.WriteString(outputHeader + lang.FormatList(output))
	b.WriteString(promptClosing)
	return b.String()
}
