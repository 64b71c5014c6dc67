// A second, independent RFC 8693 authorization server for the backend-identity tests: an OpenID provider
// built on github.com/zitadel/oidc/v3's op package (its token endpoint implements the token-exchange grant).
// The in-memory storage is the library's example storage, with three changes of ours: any subject exists,
// a subject token is a JWT signed by a key of the key set in GW_ZOP_SUBJECT_JWKS (the test's user IdP), and
// every accepted exchange is recorded and listed at GET /test/exchanges.
//
// Configuration from the environment: GW_ZOP_CLIENT_ID and GW_ZOP_CLIENT_SECRET (one confidential client,
// client_secret_basic), GW_ZOP_SUBJECT_ISSUER and GW_ZOP_SUBJECT_JWKS. It listens on 127.0.0.1, an ephemeral
// port, and prints one line `listening http://127.0.0.1:<port>` on stdout once it serves.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// anyUser answers every subject: the subject token's signature is what admits a user here.
type anyUser struct{}

func (anyUser) GetUserByID(id string) *storage.User { return &storage.User{ID: id, Username: id} }
func (anyUser) GetUserByUsername(name string) *storage.User {
	return &storage.User{ID: name, Username: name}
}
func (anyUser) ExampleClientID() string { return "" }

// exchange is what GET /test/exchanges lists for one accepted token exchange.
type exchange struct {
	Subject  string   `json:"subject"`
	Actor    string   `json:"actor,omitempty"`
	ClientID string   `json:"clientId"`
	Audience []string `json:"audience"`
	Scopes   []string `json:"scopes"`
}

type exchangeStorage struct {
	*storage.Storage
	issuer string
	keys   jose.JSONWebKeySet

	mu        sync.Mutex
	exchanges []exchange
}

// ValidateTokenExchangeRequest accepts delegation and impersonation alike and issues access tokens by default.
func (s *exchangeStorage) ValidateTokenExchangeRequest(_ context.Context, r op.TokenExchangeRequest) error {
	if r.GetRequestedTokenType() == "" {
		r.SetRequestedTokenType(oidc.AccessTokenType)
	}
	if r.GetRequestedTokenType() != oidc.AccessTokenType {
		return oidc.ErrInvalidRequest().WithDescription("only access tokens are issued here")
	}
	return nil
}

func (s *exchangeStorage) CreateTokenExchangeRequest(_ context.Context, r op.TokenExchangeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exchanges = append(s.exchanges, exchange{
		Subject:  r.GetExchangeSubject(),
		Actor:    r.GetExchangeActor(),
		ClientID: r.GetClientID(),
		Audience: append([]string{}, r.GetAudience()...),
		Scopes:   append([]string{}, r.GetScopes()...),
	})
	return nil
}

func (s *exchangeStorage) GetPrivateClaimsFromTokenExchangeRequest(
	_ context.Context,
	_ op.TokenExchangeRequest,
) (map[string]any, error) {
	return map[string]any{}, nil
}

// VerifyExchangeSubjectToken admits a JWT from the configured issuer, signed by one of its keys, not expired.
func (s *exchangeStorage) VerifyExchangeSubjectToken(
	_ context.Context,
	token string,
	_ oidc.TokenType,
) (string, string, map[string]any, error) {
	return s.verify(token)
}

func (s *exchangeStorage) VerifyExchangeActorToken(
	_ context.Context,
	token string,
	_ oidc.TokenType,
) (string, string, map[string]any, error) {
	return s.verify(token)
}

func (s *exchangeStorage) verify(token string) (string, string, map[string]any, error) {
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256, jose.RS256})
	if err != nil || len(parsed.Headers) == 0 {
		return "", "", nil, errors.New("not a signed JWT")
	}
	keys := s.keys.Key(parsed.Headers[0].KeyID)
	if len(keys) == 0 {
		return "", "", nil, errors.New("unknown key")
	}
	var std jwt.Claims
	all := map[string]any{}
	if err := parsed.Claims(keys[0].Key, &std, &all); err != nil {
		return "", "", nil, err
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: s.issuer, Time: time.Now()}, time.Minute); err != nil {
		return "", "", nil, err
	}
	return token, std.Subject, all, nil
}

func (s *exchangeStorage) list(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("content-type", "application/json")
	_ = json.NewEncoder(w).Encode(s.exchanges)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	var keys jose.JSONWebKeySet
	if err := json.Unmarshal([]byte(os.Getenv("GW_ZOP_SUBJECT_JWKS")), &keys); err != nil {
		return fmt.Errorf("GW_ZOP_SUBJECT_JWKS: %w", err)
	}
	clientID, secret := os.Getenv("GW_ZOP_CLIENT_ID"), os.Getenv("GW_ZOP_CLIENT_SECRET")
	if clientID == "" || secret == "" {
		return errors.New("GW_ZOP_CLIENT_ID and GW_ZOP_CLIENT_SECRET are required")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	issuer := "http://" + ln.Addr().String()
	clients := map[string]*storage.Client{clientID: storage.WebClient(clientID, secret)}
	store := &exchangeStorage{
		Storage: storage.NewStorageWithClients(anyUser{}, clients),
		issuer:  os.Getenv("GW_ZOP_SUBJECT_ISSUER"),
		keys:    keys,
	}
	config := &op.Config{CryptoKey: sha256.Sum256([]byte(secret + issuer)), CodeMethodS256: true}
	provider, err := op.NewOpenIDProvider(issuer, config, store, op.WithAllowInsecure())
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /test/exchanges", store.list)
	mux.Handle("/", provider)
	fmt.Printf("listening %s\n", issuer)
	return http.Serve(ln, mux)
}
