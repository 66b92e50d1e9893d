package dev.weir.api;

import java.util.List;

/**
 * The end-to-end guarantee of a pipeline: the weakest of its sources, its checkpointing mode and
 * its sinks, with the component that limits it and how to lift the limit.
 *
 * @param guarantee the end-to-end guarantee
 * @param components every component's own guarantee, sources first, then the engine, then sinks
 */
public record GuaranteeReport(Guarantee guarantee, List<Component> components) {
    /**
     * One component's part.
     *
     * @param name how the component is named in messages, such as {@code sink 'out'}
     * @param guarantee what it gives on its own
     * @param reason why it gives no more (empty for exactly-once)
     * @param fix what to change to get exactly-once (empty for exactly-once)
     */
    public record Component(String name, Guarantee guarantee, String reason, String fix) {}

    /**
     * The first component whose guarantee equals the end-to-end one, or null if exactly-once.
     *
     * @return the limiting component, or null if the pipeline is exactly-once
     */
    public Component limitedBy() {
        if (guarantee == Guarantee.EXACTLY_ONCE) {
            return null;
        }
        for (Component component : components) {
            if (component.guarantee() == guarantee) {
                return component;
            }
        }
        return null;
    }

    /**
     * The verdict in one line, e.g. {@code end-to-end guarantee: AT_LEAST_ONCE (limited by sink
     * 'console': not transactional or idempotent; use FileSink or a two-phase-commit sink)}.
     *
     * @return the guarantee and, if it is not exactly-once, the limiting component, why, and the
     *     fix
     */
    public String describe() {
        Component limit = limitedBy();
        if (limit == null) {
            return "end-to-end guarantee: " + guarantee;
        }
        return "end-to-end guarantee: "
                + guarantee
                + " (limited by "
                + limit.name()
                + ": "
                + limit.reason()
                + "; "
                + limit.fix()
                + ")";
    }
}
