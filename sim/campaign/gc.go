package campaign

// WorkerGCPercent is the garbage collector's target (runtime/debug
// SetGCPercent) a campaign's shell sets while its workers run seeds,
// unless the user set GOGC. A default seed allocates several megabytes
// and keeps a few, so at the runtime's default of 100 the collector runs
// many cycles per seed; at 400 a seed costs markedly less CPU
// (BenchmarkCampaignSeed against BenchmarkCampaignSeedGC100 in
// sim/world) for about half again the peak heap. Machines never see it:
// it changes no trace.
const WorkerGCPercent = 400
