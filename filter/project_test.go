package filter

import "testing"

func TestInProject(t *testing.T) {
	cases := []struct {
		path, root string
		want       bool
	}{
		{"/srv/app", "/srv/app", true},
		{"/srv/app", "/srv/app/", true},
		{"/srv/app/sub", "/srv/app", true},
		{"/srv/app/sub", "/srv/app/", true},
		{"/srv/apple", "/srv/app", false},
		{"/srv", "/srv/app", false},
		{"/srv/app", "/", true},
		{"/", "/", true},
		{"/srv/app", "", false},
		{"", "/", false},
	}
	for _, c := range cases {
		if got := InProject(c.path, c.root); got != c.want {
			t.Errorf("InProject(%q, %q) = %v, want %v", c.path, c.root, got, c.want)
		}
	}
}

func TestProjectMatches(t *testing.T) {
	for _, c := range []struct {
		project string
		wanted  []string
		want    bool
	}{
		{"/srv/Alpha", []string{"alpha"}, true},
		{"/srv/Alpha", []string{"ALPHA"}, true},
		{"/srv/beta", []string{"alpha"}, false},
		{"/srv/beta", nil, true},
		{"/srv/beta", []string{"/"}, true},
		{"/srv/beta", []string{"/srv/b"}, false}, // an absolute path is not a fragment
	} {
		if got := ProjectMatches(c.project, c.wanted); got != c.want {
			t.Errorf("ProjectMatches(%q, %q) = %v, want %v", c.project, c.wanted, got, c.want)
		}
	}
}
