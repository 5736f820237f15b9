package dev.kag;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.QueryExecutionException;

/**
 * Runs Neo4j Community embedded with Bolt on loopback, auth on.
 *
 * <p>Usage: {@code Neo4jLauncher <home> <port> <password>}. The password is
 * applied through the system database at every start so a changed
 * KAG_NEO4J_PASSWORD takes effect without wiping data.
 */
public final class Neo4jLauncher {
  private Neo4jLauncher() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: Neo4jLauncher <home> <port> <password>");
      System.exit(2);
    }
    Path home = Path.of(args[0]).toAbsolutePath();
    int port = Integer.parseInt(args[1]);
    String password = args[2];
    if (password.length() < 8) {
      System.err.println("KAG_NEO4J_PASSWORD must have at least 8 characters");
      System.exit(2);
    }
    Files.createDirectories(home);

    DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
        .setConfig(BoltConnector.enabled, true)
        .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
        .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
        .setConfig(HttpConnector.enabled, false)
        .setConfig(GraphDatabaseSettings.auth_enabled, true)
        .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofSeconds(120))
        .build();
    Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown, "neo4j-shutdown"));

    // Embedded access bypasses auth, so the system db can set the password.
    try {
      dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).executeTransactionally(
          "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
    } catch (QueryExecutionException e) {
      // A restart with the same password: Neo4j refuses a no-op change, which is fine.
      if (!String.valueOf(e.getMessage()).contains("cannot be the same")) {
        throw e;
      }
    }
    dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");

    System.out.println("KAG_NEO4J_READY bolt://127.0.0.1:" + port);
    System.out.flush();
    Thread.currentThread().join();
  }
}
