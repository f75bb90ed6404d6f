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
func (p InputContent) Validate() error {
	switch p.Type {
	case ContentInputText:
		if p.Text == nil {
			return fmt.Errorf("%w: content.text", ErrMissingField)
		}
		if p.ImageURL != nil {
			return fmt.Errorf("%w: content.image_url not allowed on input_text", ErrInvalid)
		}
	case ContentInputImage:
		if p.ImageURL == nil {
			return fmt.Errorf("%w: content.image_url", ErrMissingField)
		}
		if p.Text != nil {
			return fmt.Errorf("%w: content.text not allowed on input_image", ErrInvalid)
		}
	default:
		return fmt.Errorf("%w: content.type %q", ErrInvalid, truncateForError(p.Type))
	}
	return nil
}

// Validate checks the message input rule of wire-reference §5.2.
func (in MessageInput) Validate() error {
	if len(in) == 0 {
		return fmt.Errorf("%w: input has no messages", ErrInvalid)
	}
	for i, m := range in {
		hasContent := false
		for _, p := range m.Content {
			if err := p.Validate(); err != nil {
				return fmt.Errorf("input[%d]: %w", i, err)
			}
			switch p.Type {
			case ContentInputImage:
				if strings.TrimSpace(*p.ImageURL) == "" {
					return fmt.Errorf("input[%d]: %w: content.image_url is blank", i, ErrInvalid)
				}
				hasContent = true
			case ContentInputText:
				if *p.Text != "" {
					hasContent = true
				}
			}
		}
		if !hasContent {
			return fmt.Errorf("input[%d]: %w: message has no content", i, ErrInvalid)
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
