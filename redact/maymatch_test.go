package redact

import (
	"strings"
	"testing"
)

// kubernetesSecrets are Secret manifests in the orders and cases the
// kubernetes-secret-yaml rule matches.
var kubernetesSecrets = []string{
	"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: cGFzc3dvcmQxMjM0NQ==\n",
	"data:\n  token: c2VjcmV0dG9rZW4xMjM=\nmetadata:\n  name: t\nkind: Secret\n",
	"KIND: SECRET\nDATA:\n  apikey: YXBpa2V5dmFsdWUxMjM0\n",
	"x \u212Aind: Secret\ndata:\n  key: dmFsdWV2YWx1ZXZhbHVl\nkind: secret\n",
}

func kubernetesRule(t testing.TB) *rule {
	for _, ru := range New().rules {
		if ru.kind == "kubernetes-secret-yaml" {
			return ru
		}
	}
	t.Fatal("no kubernetes-secret-yaml rule")
	return nil
}

// TestKubernetesSecretsStillRedacted: the rule's precheck lets every
// manifest it matches through, and the value is redacted.
func TestKubernetesSecretsStillRedacted(t *testing.T) {
	ru, r := kubernetesRule(t), New()
	for _, s := range kubernetesSecrets {
		if !ru.compiled().re.MatchString(s) {
			t.Fatalf("the rule does not match %q", s)
		}
		if !hasKindAndData(s) {
			t.Errorf("hasKindAndData(%q) = false", s)
		}
		if got := r.String(s); !strings.Contains(got, "[REDACTED:") {
			t.Errorf("not redacted: %q", got)
		}
	}
	for _, s := range []string{"kind: Secret but no data", "data: only", "", "kind data"} {
		if hasKindAndData(s) {
			t.Errorf("hasKindAndData(%q) = true", s)
		}
	}
}

// FuzzKubernetesMayMatch: a text the kubernetes-secret-yaml expression
// matches always passes its precheck, so skipping the others loses no
// secret.
func FuzzKubernetesMayMatch(f *testing.F) {
	for _, s := range kubernetesSecrets {
		f.Add(s)
	}
	f.Add("kind:secret data: x: aaaaaaaaaaaa")
	re := kubernetesRule(f).compiled().re
	f.Fuzz(func(t *testing.T, text string) {
		if re.MatchString(text) && !hasKindAndData(text) {
			t.Fatalf("the rule matches %q, which hasKindAndData rejects", text)
		}
	})
}
