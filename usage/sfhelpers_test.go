package usage

// parseItemField parses s as the value of an Item field (RFC 9651 §4.2 with
// field_type "item"). The vocabulary has no Item field; the tests use it to
// run the published Item vectors through the same code as Dictionary values.
func parseItemField(s string) (it sfItem, err sfError, ok bool) {
	p := sfParser{s: s}
	p.skipSP()
	if !p.item(&it) {
		return it, p.err, false
	}
	p.skipSP()
	if p.i != len(p.s) {
		return it, p.fail("unexpected text after the item"), false
	}
	return it, sfError{}, true
}

// eachParam calls visit for every parameter of params, a span that
// parseDictionary accepted.
func eachParam(params string, visit func(key string, v sfItem)) bool {
	p := sfParser{s: params}
	var it sfItem
	return p.params(&it, visit) && p.i == len(params)
}

// eachInner calls visit for every item of the Inner List raw, a span that
// parseDictionary accepted.
func eachInner(raw string, visit func(sfItem)) bool {
	p := sfParser{s: raw}
	var it sfItem
	return p.innerList(&it, visit) && p.i == len(raw)
}
