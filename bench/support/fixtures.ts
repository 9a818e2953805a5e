// Emulator fixtures shared by the benchmarks.

/**
 * No platform quotas: none enforced by the emulator (`rateLimits`) and none on its quota list
 * (`quotas`). An empty `rateLimits` alone still leaves the default quota list, from which every worker
 * paces its paid submits (docs/rate-limits.md): a benchmark of polling, admission or faults would then
 * measure the pace of a 60 RPM quota instead (the rate-limit benchmark measures that).
 */
export const NO_QUOTAS = { rateLimits: {}, quotas: [] };
