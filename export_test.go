package amem

// HybridDepth is hybridDepth for the external tests: their oracle fuses
// rankings read to the same depth as Search.
var HybridDepth = hybridDepth
