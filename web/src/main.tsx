import { render } from "preact";
import { App } from "./views/App";
import { Login } from "./views/Login";
import { Join } from "./views/Join";
import { PasswordReset } from "./views/PasswordReset";

performance.mark("app-start");
const root = document.getElementById("app")!;
if (location.pathname.startsWith("/login")) render(<Login />, root);
else if (location.pathname.startsWith("/join/")) render(<Join />, root);
else if (location.pathname.startsWith("/password/reset/")) render(<PasswordReset />, root);
else render(<App />, root);
