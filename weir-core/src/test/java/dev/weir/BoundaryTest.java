package dev.weir;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import dev.weir.testing.Boundary;
import org.junit.jupiter.api.Test;

/**
 * weir-core's layers (docs/design/005-core-shape.md): the API reaches the implementation only
 * through its entry points (the factories and facades that create it), the checkpoint layer does
 * not call back into the runtime, and the internal packages form no cycle.
 */
class BoundaryTest {
    static final JavaClasses CORE = Boundary.moduleClasses();

    /** The API classes that create implementations; no other API class imports internals. */
    static final String[] ENTRY_POINTS = {
        "dev.weir.api.Pipeline",
        "dev.weir.api.source.Sources",
        "dev.weir.api.sink.Sinks",
        "dev.weir.api.sink.FileSink",
        "dev.weir.api.sink.LogSink",
        "dev.weir.api.sink.FileTableSink",
        "dev.weir.api.sink.WriteAheadSink",
        "dev.weir.api.log.DurableLog",
        "dev.weir.api.checkpoint.CheckpointView",
        "dev.weir.api.state.StateBackends",
        "dev.weir.api.testing.Faults",
        "dev.weir.api.testing.PowerCuts"
    };

    @Test
    void theApiReachesTheImplementationOnlyThroughItsEntryPoints() {
        noClasses()
                .that()
                .resideInAPackage("dev.weir.api..")
                .and()
                .doNotHaveFullyQualifiedName(ENTRY_POINTS[0])
                .and(
                        com.tngtech.archunit.base.DescribedPredicate.not(
                                com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf(
                                        entryPointClasses())))
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.weir.internal..")
                .check(CORE);
    }

    private static Class<?>[] entryPointClasses() {
        Class<?>[] classes = new Class<?>[ENTRY_POINTS.length];
        for (int i = 0; i < ENTRY_POINTS.length; i++) {
            try {
                classes[i] = Class.forName(ENTRY_POINTS[i]);
            } catch (ClassNotFoundException e) {
                throw new AssertionError("entry point " + ENTRY_POINTS[i] + " is gone", e);
            }
        }
        return classes;
    }

    @Test
    void theCheckpointLayerDoesNotCallTheRuntime() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "dev.weir.internal.checkpoint..",
                        "dev.weir.internal.io..",
                        "dev.weir.internal.log..",
                        "dev.weir.internal.state..",
                        "dev.weir.internal.testhooks..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.weir.internal.runtime..", "dev.weir.internal.operators..")
                .check(CORE);
    }

    @Test
    void theInternalPackagesFormNoCycle() {
        SlicesRuleDefinition.slices()
                .matching("dev.weir.internal.(*)..")
                .should()
                .beFreeOfCycles()
                .check(CORE);
    }
}
