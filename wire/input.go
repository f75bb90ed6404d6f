package wire

import (
	"fmt"
	"strings"
)

// Content part types.
const (
	ContentInputText  = "input_text"
	ContentInputImage = "input_image"
)

// MessageInput is an ordered list of messages. Order of messages and parts
// is preserved exactly.
type MessageInput []InputMessage

type InputMessage struct {
	Content []InputContent `json:"content"`
}

// InputContent is one content part: a text part carries Text (possibly
// empty) and no ImageURL; an image part carries ImageURL and no Text.
type InputContent struct {
	Type     string  `json:"type"`
	Text     *string `json:"text,omitempty"`
	ImageURL *string `json:"image_url,omitempty"`
}

// TextPart and ImagePart build content parts.
func TextPart(s string) InputContent  { return InputContent{Type: ContentInputText, Text: &s} }
func ImagePart(u string) InputContent { return InputContent{Type: ContentInputImage, ImageURL: &u} }
func TextInput(s string) MessageInput { return MessageInput{{Content: []InputContent{TextPart(s)}}} }

// Validate checks one content part.
func (p InputContent) Validate() error { return p.validateAt("content") }

func (p InputContent) validateAt(f string) error {
	switch p.Type {
	case ContentInputText:
		if p.Text == nil {
			return missing(f + ".text")
		}
		if p.ImageURL != nil {
			return invalid(f+".image_url", "not allowed on input_text")
		}
	case ContentInputImage:
		if p.ImageURL == nil {
			return missing(f + ".image_url")
		}
		if p.Text != nil {
			return invalid(f+".text", "not allowed on input_image")
		}
	default:
		return invalid(f+".type", "unknown content type %q", truncateForError(p.Type))
	}
	return nil
}

// validateParts checks a content array used alone (function_result.content,
// tool observations): non-null, every part valid, text may be empty.
func validateParts(parts []InputContent, f string) error {
	if parts == nil {
		return missing(f)
	}
	for i, p := range parts {
		if err := p.validateAt(fmt.Sprintf("%s[%d]", f, i)); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the message input rule of wire-reference §5.2: at least
// one message; every part valid; no blank image URL; every message has an
// image or a non-empty text (text is never trimmed).
func (in MessageInput) Validate() error { return in.validateAt("input") }

func (in MessageInput) validateAt(f string) error {
	if len(in) == 0 {
		return invalid(f, "input has no messages")
	}
	for i, m := range in {
		mf := fmt.Sprintf("%s[%d]", f, i)
		hasContent := false
		for j, p := range m.Content {
			pf := fmt.Sprintf("%s.content[%d]", mf, j)
			if err := p.validateAt(pf); err != nil {
				return err
			}
			switch p.Type {
			case ContentInputImage:
				if strings.TrimSpace(*p.ImageURL) == "" {
					return invalid(pf+".image_url", "blank")
				}
				hasContent = true
			case ContentInputText:
				if *p.Text != "" {
					hasContent = true
				}
			}
		}
		if m.Content == nil {
			return missing(mf + ".content")
		}
		if !hasContent {
			return invalid(mf+".content", "message has no content")
		}
	}
	return nil
}

// HasImages reports whether any part is an image.
func (in MessageInput) HasImages() bool {
	for _, m := range in {
		for _, p := range m.Content {
			if p.Type == ContentInputImage {
				return true
			}
		}
	}
	return false
}

// TextOnly joins the input for a text-only transport: messages are joined
// with a blank line and parts concatenated verbatim. Image parts are
// rejected with ErrImageUnsupported, never dropped.
func (in MessageInput) TextOnly() (string, error) {
	var b strings.Builder
	for i, m := range in {
		if i > 0 {
			b.WriteString("\n\n")
		}
		for _, p := range m.Content {
			if p.Type == ContentInputImage {
				return "", ErrImageUnsupported
			}
			if p.Text != nil {
				b.WriteString(*p.Text)
			}
		}
	}
	return b.String(), nil
}
