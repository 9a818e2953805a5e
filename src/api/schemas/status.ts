// Each workflow's statuses are a union in its schema file; this is the part they share.

/**
 * A status the platform reported that the workflow has no name of its own for (a new or unknown task
 * or batch status): shown as the platform wrote it. Keeps the workflow's own statuses in the union's
 * completions while admitting any string.
 */
export type PlatformReportedStatus = string & Record<never, never>;
