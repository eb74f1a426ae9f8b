package reports

import "html/template"

// The metric tables are a large part of the page's markup (a table of
// every metric for each suite and tag: a megabyte on 10,000 generated
// cases), and html/template prints each cell's fields by reflection
// through its escapers. metricTablesHTML writes the same markup
// directly: each field escaped as html/template escapes a string in text
// or in a quoted attribute (htmlText), which a spec holds to the
// template it replaces.

// metricTablesHTML is the markup of every metric table, the first shown
// and the others hidden until the group select picks them.
func metricTablesHTML(tables []metricTable) template.HTML {
	var b []byte
	for ti := range tables {
		b = appendMetricTable(b, &tables[ti], ti > 0)
	}
	return template.HTML(b)
}

func appendMetricTable(b []byte, t *metricTable, hidden bool) []byte {
	b = append(b, `<table class="metrics" data-group="`...)
	b = appendHTMLText(b, t.Key)
	b = append(b, '"')
	if hidden {
		b = append(b, " hidden"...)
	}
	b = append(b, ">\n<thead>\n<tr><th>metric</th>"...)
	for _, c := range t.Columns {
		b = append(b, "<th"...)
		if c.Delta {
			b = append(b, ` class="delta"`...)
		}
		b = append(b, '>')
		b = appendHTMLText(b, c.Label)
		b = append(b, "</th>"...)
	}
	b = append(b, "</tr>\n</thead>\n<tbody>\n"...)
	for ri := range t.Rows {
		r := &t.Rows[ri]
		b = append(b, `<tr data-metric="`...)
		b = appendHTMLText(b, r.Metric)
		b = append(b, '"')
		if r.Sub {
			b = append(b, ` class="sub"`...)
		}
		b = append(b, ">\n<th title=\""...)
		b = appendHTMLText(b, r.Hint)
		b = append(b, `">`...)
		b = appendHTMLText(b, r.Label)
		b = append(b, `<span class="metric-id">`...)
		b = appendHTMLText(b, r.Metric)
		b = append(b, "</span></th>\n"...)
		for ci := range r.Cells {
			b = appendMetricCell(b, &r.Cells[ci])
		}
		b = append(b, "</tr>\n"...)
	}
	b = append(b, "</tbody>\n<tfoot><tr><th>cases</th>"...)
	for i, s := range t.Sizes {
		b = append(b, "<td>"...)
		b = appendHTMLText(b, s)
		b = append(b, "</td>"...)
		if i > 0 {
			b = append(b, `<td class="delta"></td>`...)
		}
	}
	return append(b, "</tr></tfoot>\n</table>\n"...)
}

func appendMetricCell(b []byte, c *metricCell) []byte {
	b = append(b, `<td class="`...)
	if c.Delta {
		b = append(b, "delta "...)
	}
	b = appendHTMLText(b, c.Class)
	b = append(b, '"')
	if c.Warn != "" {
		b = append(b, ` title="`...)
		b = appendHTMLText(b, c.Warn)
		b = append(b, '"')
	}
	b = append(b, '>')
	if c.Warn != "" {
		b = append(b, `<span class="warn">⚠</span> `...)
	}
	b = append(b, `<span class="value">`...)
	b = appendHTMLText(b, c.Text)
	b = append(b, "</span>"...)
	if c.Sym != "" {
		b = append(b, `<span class="sym">`...)
		b = appendHTMLText(b, c.Sym)
		b = append(b, "</span>"...)
	}
	if c.CI != "" || c.Note != "" {
		b = append(b, `<span class="extra">`...)
		if c.CI != "" {
			b = append(b, `<span class="ci">`...)
			b = appendHTMLText(b, c.CI)
			b = append(b, "</span>"...)
		}
		if c.CI != "" && c.Note != "" {
			b = append(b, ' ')
		}
		if c.Note != "" {
			b = append(b, `<span class="n">`...)
			b = appendHTMLText(b, c.Note)
			b = append(b, "</span>"...)
		}
		b = append(b, "</span>"...)
	}
	return append(b, "</td>\n"...)
}

// appendHTMLText appends s as html/template prints a string in HTML text
// or a quoted attribute value: ", &, ', +, < and > as character
// references, NUL as U+FFFD, anything else (bad UTF-8 included) as it is.
// It looks at bytes where html/template decodes runes: those bytes are
// never part of a multi-byte sequence, nor skipped over by a bad one.
func appendHTMLText(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case 0:
			esc = "\uFFFD"
		case '"':
			esc = "&#34;"
		case '&':
			esc = "&amp;"
		case '\'':
			esc = "&#39;"
		case '+':
			esc = "&#43;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		default:
			continue
		}
		b = append(append(b, s[last:i]...), esc...)
		last = i + 1
	}
	return append(b, s[last:]...)
}
