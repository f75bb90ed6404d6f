package testgate

import "testing"

func TestCampaignEnabledReadsTheVariable(t *testing.T) {
	for _, c := range []struct {
		value   string
		on, bad bool
	}{
		{"", false, false}, {"0", false, false}, {"1", true, false}, {"yes", false, true}, {"true", false, true},
	} {
		t.Setenv(EnvCampaign, c.value)
		on, err := CampaignEnabled()
		if on != c.on || (err != nil) != c.bad {
			t.Errorf("%s=%q: got %v, %v; want %v, error %v", EnvCampaign, c.value, on, err, c.on, c.bad)
		}
	}
}

func TestCampaignSkipsUnlessOptedIn(t *testing.T) {
	t.Setenv(EnvCampaign, "")
	ran := false
	t.Run("gated", func(t *testing.T) {
		Campaign(t)
		ran = true
	})
	if ran {
		t.Error("a campaign-scale test ran without " + EnvCampaign + "=1")
	}
	t.Setenv(EnvCampaign, "1")
	t.Run("opted in", func(t *testing.T) {
		Campaign(t)
		ran = true
	})
	if !ran {
		t.Error("a campaign-scale test was skipped with " + EnvCampaign + "=1")
	}
}

func TestLongSkipsOnlyUnderShort(t *testing.T) {
	ran := false
	t.Run("long", func(t *testing.T) {
		Long(t)
		ran = true
	})
	if ran == testing.Short() {
		t.Errorf("Long ran=%v with -short=%v", ran, testing.Short())
	}
}
