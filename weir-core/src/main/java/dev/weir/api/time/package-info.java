/**
 * Event time and processing time: timestamp assigners, watermark generators and strategies, and the
 * timer service keyed process functions register timers with.
 */
package dev.weir.api.time;
