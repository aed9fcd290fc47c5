package inference

import (
	"fmt"
	"net/url"
	"strings"
)

// APIKeyEnv is the environment variable the command line reads the Chutes
// bearer key from.
const APIKeyEnv = "CHUTES_API_KEY"

// Endpoint is where one miner's model answers.
type Endpoint struct {
	// Key names the miner for the per-miner concurrency limit (a hotkey,
	// a UID); when empty, BaseURL is the key.
	Key string
	// BaseURL is the OpenAI-style base, ending in /v1; requests go to
	// BaseURL + "/chat/completions".
	BaseURL string
	// Model is sent as the request's "model".
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <APIKey>".
	APIKey string
}

// Chutes returns the endpoint of a Chutes deployment:
// https://<slug>.chutes.ai/v1. slug must be a DNS label (lower-case letters,
// digits and inner hyphens, at most 63 characters), since it becomes one.
func Chutes(slug, model, apiKey string) (Endpoint, error) {
	if err := checkSlug(slug); err != nil {
		return Endpoint{}, err
	}
	return Endpoint{Key: slug, BaseURL: "https://" + slug + ".chutes.ai/v1", Model: model, APIKey: apiKey}, nil
}

func checkSlug(slug string) error {
	if len(slug) == 0 || len(slug) > 63 {
		return fmt.Errorf("%w: chute slug must be 1 to 63 characters, got %d", ErrRequest, len(slug))
	}
	for i := 0; i < len(slug); i++ {
		c := slug[i]
		inner := i > 0 && i < len(slug)-1
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && inner) {
			return fmt.Errorf("%w: chute slug %q: character %d must be [a-z0-9] (or an inner -)", ErrRequest, clean(slug, 80), i)
		}
	}
	return nil
}

// key is the per-miner limit's key.
func (e Endpoint) key() string {
	if e.Key != "" {
		return e.Key
	}
	return e.BaseURL
}

// url checks BaseURL and returns the chat-completions URL.
func (e Endpoint) url() (string, error) {
	u, err := url.Parse(e.BaseURL)
	if err != nil {
		return "", fmt.Errorf("%w: base URL %q: %v", ErrRequest, clean(e.BaseURL, 200), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%w: base URL %q must be http(s)://host[/path]", ErrRequest, clean(e.BaseURL, 200))
	}
	return strings.TrimRight(e.BaseURL, "/") + "/chat/completions", nil
}
