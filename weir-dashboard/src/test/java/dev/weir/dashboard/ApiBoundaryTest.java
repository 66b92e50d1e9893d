package dev.weir.dashboard;

import dev.weir.testing.Boundary;
import org.junit.jupiter.api.Test;

/** This module sees Weir's API only (the build fails otherwise). */
class ApiBoundaryTest {
    @Test
    void importsNothingInternal() {
        Boundary.assertModuleUsesTheApiOnly();
    }
}
