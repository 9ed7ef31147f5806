package clean

import "golang.org/x/net/html/atom"

// isBlock reports whether id starts a new line or box when rendered, and so
// separates the words on either side of it.
func isBlock(id tagID) bool {
	switch atom.Atom(id) {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body,
		atom.Br, atom.Caption, atom.Center, atom.Dd, atom.Details,
		atom.Dialog, atom.Dir, atom.Div, atom.Dl, atom.Dt, atom.Fieldset,
		atom.Figcaption, atom.Figure, atom.Footer, atom.Form, atom.H1,
		atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Head,
		atom.Header, atom.Hgroup, atom.Hr, atom.Html, atom.Legend, atom.Li,
		atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.P, atom.Pre,
		atom.Section, atom.Summary, atom.Table, atom.Tbody, atom.Td,
		atom.Tfoot, atom.Th, atom.Thead, atom.Tr, atom.Ul, atom.Option,
		atom.Img, atom.Input, atom.Textarea, atom.Select, atom.Button,
		atom.Iframe, atom.Video, atom.Audio, atom.Canvas, atom.Object,
		atom.Embed, atom.Title, atom.Plaintext, atom.Xmp, atom.Listing,
		atom.Frameset, atom.Frame, atom.Noscript, atom.Template, atom.Svg,
		atom.Math, atom.Script, atom.Style:
		return true
	}
	return false
}

// isVoid reports whether id never has content or an end tag.
func isVoid(id tagID) bool {
	switch atom.Atom(id) {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr,
		atom.Img, atom.Input, atom.Keygen, atom.Link, atom.Meta,
		atom.Param, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

// isRawText reports whether the tokenizer reads the content of id as text
// up to its end tag (or to the end of input for plaintext).
func isRawText(id tagID) bool {
	switch atom.Atom(id) {
	case atom.Iframe, atom.Noembed, atom.Noframes, atom.Noscript,
		atom.Plaintext, atom.Script, atom.Style, atom.Textarea,
		atom.Title, atom.Xmp:
		return true
	}
	return false
}

// closesP reports whether a start tag of id closes an open <p>, as the HTML
// parsing algorithm does for block-level elements.
func closesP(id atom.Atom) bool {
	switch id {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote,
		atom.Center, atom.Dd, atom.Details, atom.Dialog, atom.Dir, atom.Div,
		atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption, atom.Figure,
		atom.Footer, atom.Form, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5,
		atom.H6, atom.Header, atom.Hgroup, atom.Hr, atom.Li, atom.Listing,
		atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.P, atom.Plaintext,
		atom.Pre, atom.Section, atom.Summary, atom.Table, atom.Ul, atom.Xmp:
		return true
	}
	return false
}
