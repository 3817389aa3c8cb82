package textformat

import (
	"strconv"
	"strings"
)

// FindUDiff returns the unified diffs in text. A file's diff is a line "--- old", the line
// "+++ new" right after it, then one or more hunks, each a line starting with "@@" (with the
// usual "-l,n +l,n" ranges, or without numbers as Aider writes them) and its lines starting with
// ' ', '-', '+' or '\'. An empty line inside a hunk is an empty context line, as models often
// write them; empty lines at a hunk's end are kept only as far as its header's counts need them.
// A path of /dev/null makes the file's diff a creation (old) or deletion (new). Git's "diff --git",
// "index" and mode lines just above "---" belong to the diff. Consecutive file diffs form one
// edit; Span also covers a code fence whose whole content the edit is.
func FindUDiff(text string) []Edit {
	if !strings.Contains(text, "+++ ") || !strings.Contains(text, "@@") {
		return nil
	}
	ls := splitLines(text)
	get := func(i int) string { return text[ls[i].start:ls[i].end] }
	var out []Edit
	for i := 0; i < len(ls); i++ {
		if !fileHeaderAt(get, i, len(ls)) {
			continue
		}
		first := gitPreamble(get, i)
		e := Edit{Format: UDiff}
		j := i
		for fileHeaderAt(get, j, len(ls)) {
			start := j
			if len(e.Files) > 0 {
				start = gitPreamble(get, j)
			}
			f, next, partial := udiffFile(text, ls, j)
			e.Partial = partial
			f.Span = Span{ls[start].start, ls[next-1].end}
			e.Files = append(e.Files, f)
			j = next
			k := j
			for k < len(ls) && isGitLine(get(k)) {
				k++
			}
			if !fileHeaderAt(get, k, len(ls)) {
				break
			}
			j = k
		}
		e.Span = Span{ls[first].start, ls[j-1].end}
		if first > 0 && j < len(ls) {
			if open := fence(get(first - 1)); open != "" && closesFence(get(j), open) {
				e.Span = Span{ls[first-1].start, ls[j].end}
				j++
			}
		}
		out = append(out, e)
		i = j - 1
	}
	return out
}

// fileHeaderAt reports whether lines i, i+1 and i+2 are "--- ", "+++ " and "@@".
func fileHeaderAt(get func(int) string, i, n int) bool {
	return i+2 < n && strings.HasPrefix(get(i), "--- ") && strings.HasPrefix(get(i+1), "+++ ") && strings.HasPrefix(get(i+2), "@@")
}

// gitPreamble returns the first of the git header lines directly above line i, or i.
func gitPreamble(get func(int) string, i int) int {
	for i > 0 && isGitLine(get(i-1)) {
		i--
	}
	return i
}

func isGitLine(l string) bool {
	for _, p := range [...]string{"diff --git ", "index ", "new file mode ", "deleted file mode ", "old mode ", "new mode ",
		"similarity index ", "rename from ", "rename to "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// udiffFile reads the file diff whose "---" line is i; next is the line after its last hunk,
// partial whether that hunk may still be growing.
func udiffFile(text string, ls []line, i int) (f File, next int, partial bool) {
	get := func(k int) string { return text[ls[k].start:ls[k].end] }
	oldPath, oldNull := diffPath(get(i)[4:], "a/")
	newPath, newNull := diffPath(get(i + 1)[4:], "b/")
	f = File{Format: UDiff, Op: OpModify, Path: newPath}
	switch {
	case oldNull:
		f.Op = OpCreate
	case newNull:
		f.Op, f.Path = OpDelete, oldPath
	case oldPath != newPath:
		f.OldPath = oldPath
	}
	k := i + 2
	for k < len(ls) && strings.HasPrefix(get(k), "@@") {
		var sec Section
		sec, k, partial = udiffHunk(text, ls, k)
		f.Sections = append(f.Sections, sec)
	}
	return f, k, partial
}

// diffPath reads the path of a "---" or "+++" line: a tab and what follows (a timestamp) are
// dropped, a quoted path is unquoted, and prefix ("a/" or "b/") is removed. null reports
// /dev/null.
func diffPath(s, prefix string) (path string, null bool) {
	if t, _, ok := strings.Cut(s, "\t"); ok {
		s = t
	}
	s = strings.TrimSpace(s)
	if u, err := strconv.Unquote(s); err == nil && strings.HasPrefix(s, `"`) {
		s = u
	}
	if s == "/dev/null" {
		return "", true
	}
	return strings.TrimPrefix(s, prefix), false
}

// udiffHunk reads the hunk whose @@ line is h; next is the line after it, partial whether it
// may still be growing: fewer lines than its header counts, or no counts and at the text's end.
func udiffHunk(text string, ls []line, h int) (sec Section, next int, partial bool) {
	get := func(k int) string { return text[ls[k].start:ls[k].end] }
	header := get(h)
	oldStart, oldCount, newCount, counted := parseRanges(header)
	k := h + 1
	for k < len(ls) {
		s := get(k)
		if s == "" {
			k++
			continue
		}
		c := s[0]
		if c != ' ' && c != '+' && c != '-' && c != '\\' {
			break
		}
		if c == '-' && fileHeaderAt(get, k, len(ls)) {
			break
		}
		k++
	}
	body := ls[h+1 : k]
	// Empty lines at the end are separators unless the header's counts need them as context.
	n := len(body)
	for n > 0 && ls[h+n].start == ls[h+n].end {
		n--
	}
	var oldN, newN int
	for _, l := range body[:n] {
		switch s := text[l.start:l.end]; {
		case s == "" || s[0] == ' ':
			oldN++
			newN++
		case s[0] == '-':
			oldN++
		case s[0] == '+':
			newN++
		}
	}
	if counted {
		extra := max(0, min(len(body)-n, oldCount-oldN, newCount-newN))
		n += extra
		partial = oldN+extra < oldCount || newN+extra < newCount
	} else {
		partial = k == len(ls)
	}
	var search, replace strings.Builder
	noEOL := false // the last new line has no line break
	for _, l := range body[:n] {
		s := text[l.start:l.end]
		switch {
		case s == "":
			search.WriteByte('\n')
			replace.WriteByte('\n')
			noEOL = false
		case s[0] == ' ':
			search.WriteString(s[1:] + "\n")
			replace.WriteString(s[1:] + "\n")
			noEOL = false
		case s[0] == '-':
			search.WriteString(s[1:] + "\n")
		case s[0] == '+':
			replace.WriteString(s[1:] + "\n")
			noEOL = false
		case s[0] == '\\':
			noEOL = true
		}
	}
	rep := replace.String()
	if noEOL {
		rep = strings.TrimSuffix(rep, "\n")
	}
	return Section{
		Span:     Span{ls[h].start, ls[h].end},
		Search:   search.String(),
		Replace:  rep,
		OldStart: oldStart,
		Header:   header,
	}, h + 1 + n, partial
}

// parseRanges reads "@@ -l,n +l,n @@" (a missing count is 1). counted is false when the header
// has no ranges; oldStart is then -1.
func parseRanges(h string) (oldStart, oldCount, newCount int, counted bool) {
	f := strings.Fields(strings.TrimPrefix(h, "@@"))
	if len(f) < 2 || !strings.HasPrefix(f[0], "-") || !strings.HasPrefix(f[1], "+") {
		return -1, 0, 0, false
	}
	start, oc, ok1 := parseRange(f[0][1:])
	_, nc, ok2 := parseRange(f[1][1:])
	if !ok1 || !ok2 {
		return -1, 0, 0, false
	}
	return start, oc, nc, true
}

func parseRange(s string) (start, count int, ok bool) {
	a, b, hasCount := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}
