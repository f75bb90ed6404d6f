package api

// agentRoutes are the Agents routes.
func agentRoutes() []Route { return nil }
