package tictactoe

import (
	"errors"
	"strings"
	"testing"
)

// boardOf reads a canonical key ("X...O....") in tests.
func boardOf(t testing.TB, key string) Board {
	t.Helper()
	if len(key) != 9 {
		t.Fatalf("key %q is not 9 cells", key)
	}
	var b Board
	for i := range key {
		switch key[i] {
		case 'X':
			b[i] = X
		case 'O':
			b[i] = O
		case '.':
		default:
			t.Fatalf("key %q: bad cell %q", key, key[i])
		}
	}
	return b
}

func TestRenderIsTheSpecifiedArt(t *testing.T) {
	t.Parallel()
	want := " X | 2 | O\n---+---+---\n 4 | X | 6\n---+---+---\n 7 | 8 | O"
	if got := boardOf(t, "X.O.X...O").Render(); got != want {
		t.Errorf("render:\n%s\nwant:\n%s", got, want)
	}
	if got := boardOf(t, "X.O.X...O").Key(); got != "X.O.X...O" {
		t.Errorf("key %q", got)
	}
}

func TestParseBoardInvertsRenderOnEveryBoard(t *testing.T) {
	t.Parallel()
	for n := 0; n < numBoards; n++ {
		var b Board
		for i, k := 0, n; i < 9; i, k = i+1, k/3 {
			b[i] = Mark(k % 3)
		}
		if b.index() != n {
			t.Fatalf("index of %s = %d, want %d", b.Key(), b.index(), n)
		}
		got, err := ParseBoard("Some text.\n\n" + b.Render() + "\n\nMore text.")
		if err != nil || got != b {
			t.Fatalf("parse(render(%s)) = %s, %v", b.Key(), got.Key(), err)
		}
	}
}

func TestParseBoardTakesTheLastRendering(t *testing.T) {
	t.Parallel()
	first, second := boardOf(t, "X........"), boardOf(t, "X...O....")
	got, err := ParseBoard(first.Render() + "\n" + second.Render())
	if err != nil || got != second {
		t.Errorf("got %s, %v; want %s", got.Key(), err, second.Key())
	}
}

func TestParseBoardRejectsNearMisses(t *testing.T) {
	t.Parallel()
	good := Board{}.Render()
	for name, text := range map[string]string{
		"empty":          "",
		"wrong number":   strings.Replace(good, " 5 ", " 6 ", 1),
		"lower-case x":   strings.Replace(good, " 5 ", " x ", 1),
		"zero":           strings.Replace(good, " 5 ", " 0 ", 1),
		"no separator":   strings.Replace(good, "---+---+---\n 4", "\n 4", 1),
		"bad separator":  strings.Replace(good, "---+---+---", "---+---+--", 1),
		"crlf":           strings.ReplaceAll(good, "\n", "\r\n"),
		"trailing space": strings.Replace(good, " 3\n", " 3 \n", 1),
		"four lines":     strings.Join(strings.Split(good, "\n")[:4], "\n"),
	} {
		if b, err := ParseBoard(text); !errors.Is(err, errNoBoard) {
			t.Errorf("%s: parsed %s, err %v", name, b.Key(), err)
		}
	}
}

func TestCheckPlayable(t *testing.T) {
	t.Parallel()
	for key, ok := range map[string]bool{
		".........": true,
		"X........": true,
		"XO.......": true,
		"O........": false, // O before X
		"XX.......": false, // X twice in a row
		"XXXOO....": false, // X has won
		"OOOXX.X..": false, // O has won
		"XOXXOOOXX": false, // full
		"XOXXOOOX.": true,
	} {
		if err := boardOf(t, key).checkPlayable(); (err == nil) != ok {
			t.Errorf("%s: %v, want playable=%v", key, err, ok)
		}
	}
}

func TestLinesAreCitedInSpecOrder(t *testing.T) {
	t.Parallel()
	// X completes the first row and the first column at once: rows come first.
	if l, ok := boardOf(t, "XXXX..X..").line(X); !ok || l != [3]int{1, 2, 3} {
		t.Errorf("line %v %v", l, ok)
	}
	if l, ok := boardOf(t, "..X.X.X..").line(X); !ok || l != [3]int{3, 5, 7} {
		t.Errorf("anti-diagonal: %v %v", l, ok)
	}
	if _, ok := boardOf(t, "XOXXOOOXX").line(X); ok {
		t.Error("draw board has a line")
	}
}

func FuzzParseBoard(f *testing.F) {
	f.Add(Board{}.Render())
	f.Add("Game 1. You are O.\n\n" + boardOf(f, "....X....").Render() + "\n\nReply.")
	f.Add(" X | O | 3\n---+---+---\n 4 | 5 | 6\n---+---+---\n 7 | 8 | 9\n")
	f.Add(" 1 | 2 | 3\n---+---+---")
	f.Fuzz(func(t *testing.T, text string) {
		b, err := ParseBoard(text)
		if err != nil {
			return
		}
		for _, m := range b {
			if m > O {
				t.Fatalf("cell holds %d", m)
			}
		}
		// What parses is exactly a rendering that is present in the text.
		r := b.Render()
		if !strings.Contains(text, r) {
			t.Fatalf("parsed %s, but its rendering is not in the text", b.Key())
		}
		again, err := ParseBoard(r)
		if err != nil || again != b {
			t.Fatalf("re-parse of %s gave %s, %v", b.Key(), again.Key(), err)
		}
		_ = b.checkPlayable()
	})
}
