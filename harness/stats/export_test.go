package stats

// Binomial exposes the bootstrap's binomial sampler to the external specs.
var Binomial = binomial

// LogRatioToMode exposes BTRD's far-from-the-mode acceptance bound.
var LogRatioToMode = logRatioToMode
