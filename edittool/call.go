package edittool

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/assistant-ls/assistant-ls/apply"
	"github.com/assistant-ls/assistant-ls/internal/eol"
)

// Call is one call of an edit tool, its input read. Tool is the name it was called by, Kind its
// semantics and Path its target path as given (relative or absolute; resolving it is the
// caller's).
type Call struct {
	Tool string
	Kind Kind
	Path string

	in          input
	diffVersion apply.Version
}

// Result is what a call does to its file.
//
// Content is the file's new content (for NoEdit, the content as it was). Create reports that
// the file does not exist and Content creates it; Whole that Content replaces the file's content
// wholesale rather than editing parts of it (write_to_file, Write, creation), so that changes
// the user made meanwhile should be merged three ways, not overwritten. NoEdit reports a call
// that changes nothing (the text editor's view). Tiers says how each replaced region was located
// and Matches where each starts in the original content (byte offsets), where the call replaces
// located text (MultiEdit's later edits are located in the earlier ones' result and have no
// Matches). Message is the reference tool's own report of success, without any listing of the
// file.
type Result struct {
	Content string
	Create  bool
	Whole   bool
	NoEdit  bool
	Tiers   []apply.MatchTier
	Matches []int
	Message string
}

// Apply computes the call's effect on its file, whose current content is content; exists says
// whether the file exists (content is then ignored when false). Failures are *Error.
func (c *Call) Apply(content string, exists bool) (Result, error) {
	if !exists {
		content = ""
	}
	switch c.Kind {
	case ReplaceInFile:
		return c.replaceInFile(content, exists)
	case WriteToFile, ClaudeWrite:
		return c.write(content, exists)
	case Editor:
		return c.editor(content, exists)
	case TextEditor:
		return c.textEditor(content, exists)
	case ClaudeEdit:
		return c.claudeEdits(content, exists, []input{c.in})
	case ClaudeMultiEdit:
		edits := c.in.list("edits")
		if len(edits) == 0 {
			return Result{}, c.fail(ErrBadInput, "`edits` is empty; give at least one {old_string, new_string} edit.")
		}
		return c.claudeEdits(content, exists, edits)
	}
	return Result{}, c.fail(ErrBadInput, fmt.Sprintf("%s is not an edit tool", c.Tool))
}

func (c *Call) fail(code Code, msg string) *Error {
	return &Error{Code: code, Tool: c.Tool, Path: c.Path, msg: msg}
}

func (c *Call) replaceInFile(content string, exists bool) (Result, error) {
	doc := eol.NewText(content)
	r, err := apply.Edit(c.in.str("diff"), doc.LF(), c.diffVersion)
	if err != nil {
		e := c.fail(ErrBadInput, err.Error())
		e.Err = err
		if ae, ok := errors.AsType[*apply.Error](err); ok && ae.Kind == apply.ErrNoMatch {
			e.Code, e.Nearest = ErrNoMatch, ae.Nearest
			if n := ae.Nearest; n != nil {
				mapped := *n
				mapped.Start, mapped.End = doc.Offset(n.Start), doc.Offset(n.End)
				e.Nearest = &mapped
			}
		}
		return Result{}, e
	}
	res := Result{Content: r.NewContent, Create: !exists}
	inOrder := true
	edits := make([]eol.Edit, len(r.Replacements))
	for i, rep := range r.Replacements {
		edits[i] = eol.Edit{Start: rep.Start, End: rep.End, New: rep.Content}
		inOrder = inOrder && (i == 0 || rep.Start >= edits[i-1].End)
		res.Tiers = append(res.Tiers, rep.Tier)
		res.Matches = append(res.Matches, doc.Offset(rep.Start))
	}
	switch {
	case doc.LF() == content:
		// LF breaks only: the applier's content is the file's.
	case inOrder:
		res.Content = doc.Apply(edits...)
	default:
		res.Content = doc.Restore(r.NewContent)
	}
	return res, nil
}

// write replaces the file with the content, in the existing file's line-break style.
func (c *Call) write(content string, exists bool) (Result, error) {
	res := Result{Content: eol.NewText(content).Styled(c.in.str("content")), Create: !exists, Whole: true}
	if c.Kind == ClaudeWrite {
		res.Message = fmt.Sprintf("The file %s has been updated successfully.", c.Path)
		if !exists {
			res.Message = fmt.Sprintf("File created successfully at: %s", c.Path)
		}
	}
	return res, nil
}

// lf normalises an edit text's line breaks to "\n", for matching against content made LF.
func lf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// replaceOnce replaces the only occurrence of old (non-empty, LF) in content, line breaks
// normalised as eol does. notFound and many build the reference's messages.
func (c *Call) replaceOnce(content, old, new string, notFound func() string, many func(lines []int) string) (Result, error) {
	doc := eol.NewText(content)
	text := doc.LF()
	old, new = lf(old), lf(new)
	at := occurrences(text, old)
	switch {
	case len(at) == 0:
		return Result{}, noMatch(c, notFound(), doc, old)
	case len(at) > 1:
		lines := lineNumbers(text, at)
		e := c.fail(ErrAmbiguous, many(lines))
		e.Count, e.Lines = len(at), lines
		return Result{}, e
	}
	out := doc.Apply(eol.Edit{Start: at[0], End: at[0] + len(old), New: new})
	return Result{Content: out, Tiers: []apply.MatchTier{apply.TierExact}, Matches: []int{doc.Offset(at[0])}}, nil
}

func (c *Call) editor(content string, exists bool) (Result, error) {
	newText := c.in.str("new_text")
	if k, ok := c.in.integer("insert_line"); ok {
		if !exists {
			return Result{}, c.fail(ErrFileMissing, fmt.Sprintf("File not found: %s", c.Path))
		}
		doc := eol.NewText(content)
		lines := strings.Split(doc.LF(), "\n")
		if k < 1 || k > len(lines)+1 {
			n := len(lines) + 1
			return Result{}, c.fail(ErrBadInput, fmt.Sprintf("Invalid insert_line: %d. insert_line must be a positive one-based boundary line in the range 1-%d. Use %d to append at EOF.", k, n, n))
		}
		out, at := insertLines(doc, lines, k-1, lf(newText))
		return Result{Content: out, Matches: []int{at},
			Message: fmt.Sprintf("Inserted content at line %d in %s.", k, c.Path)}, nil
	}
	if !exists {
		return Result{Content: newText, Create: true, Whole: true, Message: fmt.Sprintf("File created successfully at: %s", c.Path)}, nil
	}
	if !c.in.has("old_text") {
		return Result{}, c.fail(ErrBadInput, "Parameter `old_text` is required when editing an existing file without `insert_line`")
	}
	notFound := func() string { return fmt.Sprintf("No replacement performed: text not found in %s.", c.Path) }
	if c.in.str("old_text") == "" {
		return Result{}, noMatch(c, notFound(), eol.NewText(content), "")
	}
	res, err := c.replaceOnce(content, c.in.str("old_text"), newText, notFound, func(lines []int) string {
		return fmt.Sprintf("No replacement performed: multiple occurrences of text found in %s.\nIt occurs %d times, starting on lines %s; include more of the surrounding text in old_text so that it matches once.",
			c.Path, len(lines), joinInts(lines, ", "))
	})
	res.Message = fmt.Sprintf("Edited %s", c.Path)
	return res, err
}

// insertLines inserts the lines of s (written with "\n") into doc before line index k of lines,
// its LF text split at "\n", as a line of their own: after the last line, they follow a new
// break. at is the offset in doc's original where the insertion is made.
func insertLines(doc eol.Text, lines []string, k int, s string) (out string, at int) {
	for _, l := range lines[:k] {
		at += len(l) + 1
	}
	e := eol.Edit{Start: at, End: at, New: s + "\n"}
	if k == len(lines) {
		end := len(doc.LF())
		e = eol.Edit{Start: end, End: end, New: "\n" + s}
	}
	return doc.Apply(e), doc.Offset(e.Start)
}

func joinInts(ns []int, sep string) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, sep)
}

func (c *Call) textEditor(content string, exists bool) (Result, error) {
	cmd := c.in.str("command")
	commands := "view, create, str_replace, insert"
	if c.Tool == "str_replace_editor" {
		commands += ", undo_edit"
	}
	switch cmd {
	case "view", "create", "str_replace", "insert":
	case "undo_edit":
		if c.Tool == "str_replace_editor" {
			if !exists {
				return Result{}, c.fail(ErrFileMissing, fmt.Sprintf("The path %s does not exist. Please provide a valid path.", c.Path))
			}
			e := c.fail(ErrUnsupported, fmt.Sprintf("No edit history found for %s.", c.Path))
			e.hint = "This editor keeps no undo history; make the reverse change with str_replace."
			return Result{}, e
		}
		fallthrough
	default:
		return Result{}, c.fail(ErrBadInput, fmt.Sprintf("Unrecognized command %s. The allowed commands for the %s tool are: %s", cmd, c.Tool, commands))
	}
	if cmd == "create" {
		if !c.in.has("file_text") {
			return Result{}, c.fail(ErrBadInput, "Parameter `file_text` is required for command: create")
		}
		if exists {
			return Result{}, c.fail(ErrFileExists, fmt.Sprintf("File already exists at: %s. Cannot overwrite files using command `create`.", c.Path))
		}
		return Result{Content: c.in.str("file_text"), Create: true, Whole: true, Message: fmt.Sprintf("File created successfully at: %s", c.Path)}, nil
	}
	if !exists {
		return Result{}, c.fail(ErrFileMissing, fmt.Sprintf("The path %s does not exist. Please provide a valid path.", c.Path))
	}
	edited := fmt.Sprintf("The file %s has been edited.", c.Path)
	switch cmd {
	case "view":
		return Result{Content: content, NoEdit: true}, nil
	case "insert":
		k, ok := c.in.integer("insert_line")
		if !ok {
			return Result{}, c.fail(ErrBadInput, "Parameter `insert_line` is required for command: insert")
		}
		text, err := c.insertText()
		if err != nil {
			return Result{}, err
		}
		doc := eol.NewText(content)
		lines := strings.Split(doc.LF(), "\n")
		if k < 0 || k > len(lines) {
			return Result{}, c.fail(ErrBadInput, fmt.Sprintf("Invalid `insert_line` parameter: %d. It should be within the range of lines of the file: [0, %d]", k, len(lines)))
		}
		out, at := insertLines(doc, lines, k, lf(text))
		return Result{Content: out, Matches: []int{at}, Message: edited}, nil
	}
	if !c.in.has("old_str") {
		return Result{}, c.fail(ErrBadInput, "Parameter `old_str` is required for command: str_replace")
	}
	old := c.in.str("old_str")
	if old == "" {
		return Result{}, c.fail(ErrBadInput, "Parameter `old_str` must not be empty for command: str_replace; give the exact text to replace.")
	}
	res, err := c.replaceOnce(content, old, c.in.str("new_str"), func() string {
		return fmt.Sprintf("No replacement was performed, old_str `%s` did not appear verbatim in %s.", old, c.Path)
	}, func(lines []int) string {
		return fmt.Sprintf("No replacement was performed. Multiple occurrences of old_str `%s` in lines [%s]. Please ensure it is unique", old, joinInts(lines, ", "))
	})
	res.Message = edited
	return res, err
}

// insertText is the text of an insert command: new_str, else insert_text, the name Claude gives
// it with the text editor's newer versions. Both may come only with the same text: were one
// silently preferred, the model would not learn that the other was dropped.
func (c *Call) insertText() (string, error) {
	switch newStr, insText := c.in.has("new_str"), c.in.has("insert_text"); {
	case newStr && insText && c.in.str("new_str") != c.in.str("insert_text"):
		return "", c.fail(ErrBadInput, "Parameters `new_str` and `insert_text` both give the text to insert, and they differ; send only one of them (`new_str`, the name the tool defines).")
	case newStr:
		return c.in.str("new_str"), nil
	case insText:
		return c.in.str("insert_text"), nil
	}
	return "", c.fail(ErrBadInput, "Parameter `new_str` is required for command: insert")
}

// notebookMessage is Claude Code's refusal of a text edit of a Jupyter notebook.
const notebookMessage = "File is a Jupyter Notebook. Use the NotebookEdit to edit this file."

// claudeEdits applies Claude Code edits in order, all or nothing; a single Edit is one edit.
func (c *Call) claudeEdits(content string, exists bool, edits []input) (Result, error) {
	multi := c.Kind == ClaudeMultiEdit
	at := func(e *Error, i int) *Error {
		if multi {
			e.Edit = i + 1
			e.hint = strings.TrimPrefix(e.hint+"\n", "\n") + fmt.Sprintf("This was edit %d of %d; none of the edits was applied.", i+1, len(edits))
		}
		return e
	}
	doc := eol.NewText(content)
	text := doc.LF()
	res := Result{Create: !exists}
	var prevNew []string
	for i, ed := range edits {
		old, new := lf(ed.str("old_string")), lf(ed.str("new_string"))
		if old == new {
			return Result{}, at(c.fail(ErrNoChange, "No changes to make: old_string and new_string are exactly the same."), i)
		}
		if t := strings.TrimRight(old, "\n"); t != "" {
			for _, p := range prevNew {
				if strings.Contains(p, t) {
					return Result{}, at(c.fail(ErrBadInput, "Cannot edit file: old_string is a substring of a new_string from a previous edit."), i)
				}
			}
		}
		prevNew = append(prevNew, new)
		if old == "" {
			switch {
			case i > 0:
				return Result{}, at(c.fail(ErrBadInput, "old_string is empty; only the first edit may have an empty old_string, to create a new file."), i)
			case exists && strings.TrimSpace(text) != "":
				return Result{}, at(c.fail(ErrFileExists, "Cannot create new file - file already exists."), i)
			}
			doc, res.Whole = eol.NewText(doc.Apply(eol.Edit{Start: 0, End: len(text), New: new})), true
			text = doc.LF()
			res.Tiers = append(res.Tiers, apply.TierEmpty)
			continue
		}
		if !exists && i == 0 {
			return Result{}, at(c.fail(ErrFileMissing, "File does not exist."), i)
		}
		if exists && strings.HasSuffix(c.Path, ".ipynb") {
			return Result{}, at(c.fail(ErrNotebook, notebookMessage), i)
		}
		start, end, tier := findActual(text, old)
		if start < 0 {
			return Result{}, at(noMatch(c, "String to replace not found in file.\nString: "+ed.str("old_string"), doc, old), i)
		}
		actual := text[start:end]
		offs := occurrences(text, actual)
		if len(offs) > 1 && !ed.boolean("replace_all") {
			e := c.fail(ErrAmbiguous, fmt.Sprintf("Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: %s", len(offs), ed.str("old_string")))
			e.Count, e.Lines = len(offs), lineNumbers(text, offs)
			return Result{}, at(e, i)
		}
		if new == "" && !strings.HasSuffix(actual, "\n") && strings.Contains(text, actual+"\n") {
			actual += "\n"
			offs = occurrences(text, actual)
		}
		if !ed.boolean("replace_all") {
			offs = offs[:1]
		}
		if i == 0 {
			for _, o := range offs {
				res.Matches = append(res.Matches, doc.Offset(o))
			}
		}
		for range offs {
			res.Tiers = append(res.Tiers, tier)
		}
		edits := make([]eol.Edit, len(offs))
		for j, o := range offs {
			edits[j] = eol.Edit{Start: o, End: o + len(actual), New: new}
		}
		doc = eol.NewText(doc.Apply(edits...))
		text = doc.LF()
	}
	out := doc.Original()
	if exists && out == content {
		return Result{}, c.fail(ErrNoChange, "Original and edited file match exactly. Failed to apply edit.")
	}
	res.Content = out
	switch {
	case !exists:
		res.Message = fmt.Sprintf("File created successfully at: %s", c.Path)
	case multi:
		res.Message = fmt.Sprintf("Applied %d edits to %s", len(edits), c.Path)
	default:
		res.Message = fmt.Sprintf("The file %s has been updated successfully.", c.Path)
	}
	return res, nil
}

// findActual finds old in text as Claude Code does: verbatim, else with curly quotes in both
// read as straight ones. It returns the matched range of text (-1 when none) and the tier.
func findActual(text, old string) (start, end int, tier apply.MatchTier) {
	if i := strings.Index(text, old); i >= 0 {
		return i, i + len(old), apply.TierExact
	}
	nt, pos := straightQuotes(text)
	no, _ := straightQuotes(old)
	i := strings.Index(nt, no)
	if i < 0 {
		return -1, -1, ""
	}
	return pos[i], pos[i+len(no)], TierQuotes
}

// straightQuotes returns s with ‘ ’ made ' and “ ” made ", and for each byte offset of the
// result (and its end) the offset in s it comes from.
func straightQuotes(s string) (string, []int) {
	var b strings.Builder
	b.Grow(len(s))
	pos := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\u2018', '\u2019':
			b.WriteByte('\'')
			pos = append(pos, i)
		case '\u201C', '\u201D':
			b.WriteByte('"')
			pos = append(pos, i)
		default:
			b.WriteString(s[i : i+n])
			for k := range n {
				pos = append(pos, i+k)
			}
		}
		i += n
	}
	pos = append(pos, len(s))
	return b.String(), pos
}
