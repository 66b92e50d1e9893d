package dev.weir.testing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;

/**
 * The API boundary, as architecture rules the build runs (ArchUnit): users and connector modules
 * see {@code dev.weir.api..} only. Every module's test suite calls {@link
 * #assertModuleUsesTheApiOnly} on its own compiled classes; weir-core's {@code BoundaryTest} checks
 * its inside.
 */
public final class Boundary {
    private Boundary() {}

    /** The classes this module compiled (not its dependencies, not its tests). */
    public static JavaClasses moduleClasses() {
        return new ClassFileImporter().importPath(Path.of("target", "classes"));
    }

    /** Fails, listing each offending dependency, if the module's classes use Weir's internals. */
    public static void assertModuleUsesTheApiOnly() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.weir.internal..")
                .because(
                        "users and connector modules see dev.weir.api only; what they need from"
                                + " the core belongs in the API (see docs/design/005-core-shape.md)")
                .check(moduleClasses());
    }
}
