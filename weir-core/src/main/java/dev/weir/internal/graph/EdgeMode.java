package dev.weir.internal.graph;

/** How a record on an edge picks its target subtask. */
public enum EdgeMode {
    /** Producer subtask i sends only to consumer subtask i. */
    POINTWISE,
    /** The record's key group decides. */
    KEYED,
    /** Round-robin. */
    REBALANCE
}
