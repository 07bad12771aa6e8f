import { render } from "preact";
import "./state/theme";
import { App } from "./App";
import { auth } from "./state/auth";
import "./styles/tokens.css";
import "./styles/layout.css";
import "./styles/components.css";
import "./styles/pages.css";
import "./styles/labs.css";
import "./styles/readers.css";

render(<App />, document.getElementById("app")!);
void auth.refresh();
