// The Java checker of the differential suite: javac's parser, plus the one rule of the Java
// grammar (JLS 8.8.7) that javac's parser leaves to its attribution phase: `this(...)` and
// `super(...)` calls stand only first in a constructor body. Reads one path a line on stdin,
// prints `ok` or `err` for each.
import com.sun.source.tree.*;
import com.sun.source.util.*;
import java.io.*;
import java.util.*;
import javax.tools.*;

public class JavaSyntax {
    public static void main(String[] args) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager files = javac.getStandardFileManager(null, null, null);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String path; (path = in.readLine()) != null; ) {
            if (path.isEmpty()) continue;
            DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
            JavacTask task = (JavacTask) javac.getTask(null, files, diags, List.of("-proc:none"),
                    null, files.getJavaFileObjects(path));
            boolean ok = true;
            for (CompilationUnitTree unit : task.parse()) ok &= constructorCallsFirst(unit);
            ok &= diags.getDiagnostics().stream().noneMatch(d -> d.getKind() == Diagnostic.Kind.ERROR);
            System.out.println(ok ? "ok" : "err");
        }
    }

    static boolean constructorCallsFirst(CompilationUnitTree unit) {
        boolean[] ok = {true};
        new TreeScanner<Void, Void>() {
            @Override
            public Void visitMethod(MethodTree m, Void v) {
                BlockTree body = m.getBody();
                if (body != null) {
                    List<? extends StatementTree> stmts = body.getStatements();
                    for (int i = 0; i < stmts.size(); i++) {
                        boolean allowed = i == 0 && m.getName().contentEquals("<init>");
                        if (!allowed && isConstructorCall(stmts.get(i))) ok[0] = false;
                    }
                }
                return super.visitMethod(m, v);
            }
        }.scan(unit, null);
        return ok[0];
    }

    static boolean isConstructorCall(StatementTree s) {
        if (!(s instanceof ExpressionStatementTree e)) return false;
        if (!(e.getExpression() instanceof MethodInvocationTree call)) return false;
        ExpressionTree callee = call.getMethodSelect();
        if (callee instanceof IdentifierTree id) {
            return id.getName().contentEquals("this") || id.getName().contentEquals("super");
        }
        return callee instanceof MemberSelectTree sel && sel.getIdentifier().contentEquals("super");
    }
}
