package dev.weir.examples;

import dev.weir.testing.Boundary;
import org.junit.jupiter.api.Test;

/** The examples use Weir's API only, as a user's code would (the build fails otherwise). */
class ApiBoundaryTest {
    @Test
    void importsNothingInternal() {
        Boundary.assertModuleUsesTheApiOnly();
    }
}
