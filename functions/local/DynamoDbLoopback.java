import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Starts DynamoDB Local bound to 127.0.0.1 on a port chosen by the OS (DynamoDB Local itself binds every
 * interface on a fixed port). Prints "LISTENING <port>" once serving, and exits when its standard input
 * closes, so it never outlives the local stack that started it.
 */
public class DynamoDbLoopback {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector c : server.getConnectors()) { ServerConnector sc = (ServerConnector) c; sc.setHost("127.0.0.1"); sc.setPort(0); }
    proxy.start();
    for (Connector c : server.getConnectors()) System.out.println("LISTENING " + ((ServerConnector) c).getLocalPort());
    System.out.flush();
    Thread watchdog = new Thread(() -> {
      try {
        while (System.in.read() != -1) { }
      } catch (Exception ignored) {
      }
      Runtime.getRuntime().halt(0);
    });
    watchdog.setDaemon(true);
    watchdog.start();
    proxy.join();
  }
}
