package text

import "strings"

// BOM is the byte order mark some editors put at the start of UTF-8 files.
const BOM = "\uFEFF"

// KeepBOM returns new with old's UTF-8 byte order mark: if old starts with one and new does not,
// the mark is prepended, so write_to_file keeps a file's BOM; otherwise new is returned as is.
func KeepBOM(old, new string) string {
	if strings.HasPrefix(old, BOM) && !strings.HasPrefix(new, BOM) {
		return BOM + new
	}
	return new
}
