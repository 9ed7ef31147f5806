package prepare

import "encoding/json"

// Input is a page as the JSON input record the decoder reads with the
// default field names (decode.fields): what the tools, demos and tests
// produce.
type Input struct {
	ID   string `json:"id"`
	URL  string `json:"url,omitempty"`
	HTML string `json:"html,omitempty"` // markup, cleaned as HTML
	Body string `json:"body,omitempty"` // plain text
}

// JSON returns the record as a message value.
func (in Input) JSON() []byte {
	v, _ := json.Marshal(in) // strings always marshal
	return v
}
