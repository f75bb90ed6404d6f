package engine

// ProfileFields exposes the validator's field classification to tests.
var ProfileFields = profileFields
