package dev.weir.api;

import java.time.Duration;

/**
 * What a finished job reports.
 *
 * @param jobName the job's name
 * @param duration wall time from start to end
 */
public record JobResult(String jobName, Duration duration) {}
