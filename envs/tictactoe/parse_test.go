package tictactoe

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseMove(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, reply string
		cell        int
		reason      string
	}{
		{"tag", "<move>5</move>", 5, ""},
		{"tag with spaces", "<move> 7 \n</move>", 7, ""},
		{"tag with cell", "<move>Cell 3</move>", 3, ""},
		{"tag upper case", "I go <MOVE>9</Move>.", 9, ""},
		{"answer tag", "<answer>2</answer>", 2, ""},
		{"leading zeros", "<move>007</move>", 7, ""},
		{"prose around", "The centre is strongest.\n\n<move>5</move>\n\nGood luck!", 5, ""},
		{"last tag wins", "<move>1</move> no, better: <move>9</move>", 9, ""},
		{"last of move and answer", "<answer>4</answer> <move>6</move>", 6, ""},
		{"last of answer and move", "<move>6</move> <answer>4</answer>", 4, ""},
		{"malformed last tag ignored", "<move>3</move> <move>the corner</move>", 3, ""},
		{"nested tag ignored", "<move><b>3</b></move>", 0, reasonNoMove},
		{"think block", "<think>maybe <move>1</move></think><move>8</move>", 8, ""},
		{"only in think", "<think>I will play <move>5</move></think>", 0, reasonNoMove},
		{"unclosed think", "<move>2</move><think>or <move>4</move>", 2, ""},
		{"code fence", "```\n<move>4</move>\n```", 4, ""},
		{"bare number", "5", 5, ""},
		{"bare number with period", " 5.\n", 5, ""},
		{"bare number in fence", "```text\n3\n```", 3, ""},
		{"cell in prose", "I'll take cell 7, then cell 3 next time... no: cell 1.", 1, ""},
		{"position in prose", "Position #4 it is.", 4, ""},
		{"square in prose", "square 6", 6, ""},
		{"cells plural not a move", "You completed cells 1-5-9", 0, reasonNoMove},
		{"digits in prose not a move", "There are 3 ways to win from 5", 0, reasonNoMove},
		{"broken tag", "<move>5</move", 0, reasonNoMove},
		{"broken tag with cell prose", "<move>5</move cell 2", 2, ""},
		{"tag beats prose", "cell 2 <move>8</move> cell 3", 8, ""},
		{"zero", "<move>0</move>", 0, "illegal move: cell 0 is out of range (1 to 9)"},
		{"ten", "<move>10</move>", 0, "illegal move: cell 10 is out of range (1 to 9)"},
		{"huge", "<move>" + strings.Repeat("9", 100) + "</move>", 0, "illegal move: cell 99999999999999999999... is out of range (1 to 9)"},
		{"negative", "<move>-3</move>", 0, reasonNoMove},
		{"junk", "\x00\xff\xfe<<<>>>", 0, reasonNoMove},
		{"word", "<move>five</move>", 0, reasonNoMove},
		{"markdown in tag", "<move>**5**</move>", 5, ""},
		{"code in tag", "<move>`cell 4`.</move>", 4, ""},
		{"long s is not s", "<move>5</move> <anſwer>3</anſwer>", 5, ""},
		{"non-ascii letter before cell", "écell 6", 6, ""},
		{"cell glued to a word", "excell 6", 0, reasonNoMove},
		{"number glued to a word", "cell 6th", 0, reasonNoMove},
	} {
		cell, reason := parseMove(tc.reply)
		if cell != tc.cell || reason != tc.reason {
			t.Errorf("%s: %q -> %d %q, want %d %q", tc.name, tc.reply, cell, reason, tc.cell, tc.reason)
		}
	}
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{
		"<move>5</move>", "<answer>3</answer>", "cell 4", "7", "<think>x</think><move>1</move>",
		"<move>10</move>", "```\n<move>2</move>\n```", "<MOVE> cell 9 </MOVE>", "<move>5</move", "\xff",
	} {
		f.Add(s, uint8(5))
	}
	f.Fuzz(func(t *testing.T, reply string, k uint8) {
		cell, reason := parseMove(reply)
		if (reason == "") != (cell >= 1 && cell <= 9) {
			t.Fatalf("%q: cell %d with reason %q", reply, cell, reason)
		}
		if reason == "" && parseOnly(t, formatMove(cell)) != cell {
			t.Fatalf("%q: cell %d does not survive formatting", reply, cell)
		}
		// A move appended on its own line wins, unless the reply leaves a
		// <think> open (everything after it is cut as reasoning).
		if strings.Contains(strings.ToLower(reply), "<think>") {
			return
		}
		want := int(k%9) + 1
		if got := parseOnly(t, reply+"\n<move>"+strconv.Itoa(want)+"</move>"); got != want {
			t.Fatalf("%q + <move>%d</move> parsed as %d", reply, want, got)
		}
	})
}

func parseOnly(t *testing.T, reply string) int {
	t.Helper()
	cell, reason := parseMove(reply)
	if reason != "" {
		t.Fatalf("%q: %s", reply, reason)
	}
	return cell
}
