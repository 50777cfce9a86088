import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;

/**
 * What a JDBC BI tool (DBeaver, Metabase) reads of the warehouse's joins: for every table of the
 * three schemas, DatabaseMetaData.getImportedKeys through the PostgreSQL JDBC driver itself,
 * compared with the rows src/analytics/relationships.ts says it must give (a JSON array of
 * [PKTABLE_SCHEM, PKTABLE_NAME, PKCOLUMN_NAME, FKTABLE_SCHEM, FKTABLE_NAME, FKCOLUMN_NAME,
 * KEY_SEQ, FK_NAME, DEFERRABILITY], written by check-imported-keys.ts). Prints one line and exits
 * 0 when they are the same; else names every row missing or unexpected and exits 1.
 *
 * java -cp /usr/share/java/postgresql.jar ImportedKeys.java JDBC_URL USER PASSWORD_FILE EXPECTED_JSON
 */
public class ImportedKeys {
  private static final String[] SCHEMAS = {"mrp", "pitwall", "analytics"};

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: ImportedKeys JDBC_URL USER PASSWORD_FILE EXPECTED_JSON");
      System.exit(2);
    }
    Properties login = new Properties();
    login.setProperty("user", args[1]);
    login.setProperty("password", Files.readString(Path.of(args[2])).trim());
    TreeSet<String> expected = new TreeSet<>();
    for (List<String> row : parseRows(Files.readString(Path.of(args[3])))) expected.add(String.join(" | ", row));

    TreeSet<String> seen = new TreeSet<>();
    TreeSet<String> keys = new TreeSet<>();
    int tables = 0;
    String versions;
    try (Connection c = DriverManager.getConnection(args[0], login)) {
      DatabaseMetaData md = c.getMetaData();
      versions = "pgjdbc " + md.getDriverVersion() + ", PostgreSQL " + md.getDatabaseProductVersion();
      for (String schema : SCHEMAS) {
        try (ResultSet t = md.getTables(null, schema, "%", new String[] {"TABLE"})) {
          while (t.next()) {
            tables++;
            try (ResultSet k = md.getImportedKeys(null, schema, t.getString("TABLE_NAME"))) {
              while (k.next()) {
                seen.add(String.join(" | ", k.getString("PKTABLE_SCHEM"), k.getString("PKTABLE_NAME"), k.getString("PKCOLUMN_NAME"),
                    k.getString("FKTABLE_SCHEM"), k.getString("FKTABLE_NAME"), k.getString("FKCOLUMN_NAME"),
                    String.valueOf(k.getShort("KEY_SEQ")), k.getString("FK_NAME"), String.valueOf(k.getShort("DEFERRABILITY"))));
                keys.add(k.getString("FKTABLE_SCHEM") + "." + k.getString("FKTABLE_NAME") + " " + k.getString("FK_NAME"));
              }
            }
          }
        }
      }
    }

    TreeSet<String> missing = new TreeSet<>(expected);
    missing.removeAll(seen);
    TreeSet<String> unexpected = new TreeSet<>(seen);
    unexpected.removeAll(expected);
    if (!missing.isEmpty() || !unexpected.isEmpty() || expected.isEmpty()) {
      System.err.println("getImportedKeys (" + versions + ") differs from src/analytics/relationships.ts over " + tables + " tables"
          + " (PKTABLE_SCHEM | PKTABLE_NAME | PKCOLUMN_NAME | FKTABLE_SCHEM | FKTABLE_NAME | FKCOLUMN_NAME | KEY_SEQ | FK_NAME | DEFERRABILITY):");
      for (String row : missing) System.err.println("  missing:    " + row);
      for (String row : unexpected) System.err.println("  unexpected: " + row);
      if (expected.isEmpty()) System.err.println("  the expected list is empty");
      System.exit(1);
    }
    System.out.println("getImportedKeys (" + versions + "): " + tables + " tables, " + keys.size() + " foreign keys (" + seen.size()
        + " column pairs), the same as src/analytics/relationships.ts");
  }

  /** The expected file: a JSON array of arrays of strings and integers, nothing else. */
  private static List<List<String>> parseRows(String json) {
    List<List<String>> rows = new ArrayList<>();
    List<String> row = null;
    int depth = 0;
    for (int i = 0; i < json.length(); i++) {
      char ch = json.charAt(i);
      if (ch == '[') {
        if (++depth == 2) row = new ArrayList<>();
      } else if (ch == ']') {
        if (depth-- == 2) rows.add(row);
      } else if (ch == '"') {
        StringBuilder s = new StringBuilder();
        for (i++; json.charAt(i) != '"'; i++) s.append(json.charAt(i) == '\\' ? json.charAt(++i) : json.charAt(i));
        row.add(s.toString());
      } else if (Character.isDigit(ch) || ch == '-') {
        int start = i;
        while (i + 1 < json.length() && Character.isDigit(json.charAt(i + 1))) i++;
        row.add(json.substring(start, i + 1));
      } else if (ch != ',' && !Character.isWhitespace(ch)) {
        throw new IllegalArgumentException("expected rows: unexpected '" + ch + "' at " + i);
      }
    }
    return rows;
  }
}
