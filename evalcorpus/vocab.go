package evalcorpus

// The shared vocabulary: what every session is made of besides its topic.
// It is deliberately full of the words questions are made of (fix, test,
// error, build, config, why, slow), so that a query's common words match
// many sessions and only its specific words point at the target, as in a
// real transcript archive.

// project is a working directory with the parts of it that chores touch.
type project struct {
	Dir        string
	Components []string
	Files      []string
	Test       string // the project's test command
}

// projects lists every project of the corpus; topics' projects must be
// among them.
func projects() []project {
	return []project{
		{"/home/dev/src/shop", []string{"cart", "catalog", "product page", "order history", "admin panel"}, []string{"src/cart/cart.ts", "src/catalog/list.tsx", "src/server/routes.ts"}, "npm test"},
		{"/home/dev/src/payments-api", []string{"payment service", "ledger", "refund handler", "merchant settings"}, []string{"payments/service.go", "ledger/entries.go", "cmd/api/main.go"}, "go test ./..."},
		{"/home/dev/src/auth-gateway", []string{"login page", "session middleware", "admin API", "directory sync"}, []string{"auth/handler.go", "middleware/session.go", "cmd/gateway/main.go"}, "go test ./..."},
		{"/home/dev/src/chat-server", []string{"room service", "presence tracker", "message store", "typing indicator"}, []string{"rooms/rooms.go", "presence/tracker.go", "store/messages.go"}, "go test ./..."},
		{"/home/dev/src/infra", []string{"staging cluster", "VPC module", "monitoring stack", "DNS records"}, []string{"modules/vpc/main.tf", "k8s/api/deployment.yaml", "monitoring/values.yaml"}, "terraform validate"},
		{"/home/dev/src/mobile-app", []string{"onboarding flow", "settings screen", "offline queue", "profile screen"}, []string{"src/screens/Settings.tsx", "src/state/queue.ts", "ios/Podfile"}, "npm test"},
		{"/home/dev/src/data-pipeline", []string{"events loader", "sessions DAG", "export job", "schema registry"}, []string{"dags/events_daily.py", "jobs/export.py", "schemas/events.avsc"}, "pytest"},
		{"/home/dev/src/blog", []string{"post layout", "tag pages", "about page", "reading time partial"}, []string{"layouts/_default/single.html", "config.toml", "content/posts/_index.md"}, "hugo --gc"},
		{"/home/dev/src/search-service", []string{"query builder", "indexer worker", "ranking config", "autocomplete"}, []string{"query/builder.go", "indexer/worker.go", "mappings/products.json"}, "go test ./..."},
		{"/home/dev/src/dashboard", []string{"orders page", "charts", "user settings", "navigation"}, []string{"src/pages/Orders.tsx", "src/components/Chart.tsx", "src/api/client.ts"}, "npm test"},
		{"/home/dev/src/ml-platform", []string{"training pipeline", "model registry", "evaluation job", "serving API"}, []string{"training/train.py", "registry/models.py", "serving/app.py"}, "pytest"},
		{"/home/dev/src/billing", []string{"invoice generator", "subscription model", "tax tables", "billing admin"}, []string{"billing/invoices.py", "billing/models.py", "billing/admin.py"}, "pytest"},
		{"/home/dev/src/notifications", []string{"email sender", "push worker", "template engine", "preference center"}, []string{"src/email/send.ts", "src/push/worker.ts", "src/templates/index.ts"}, "npm test"},
		{"/home/dev/src/inventory", []string{"stock service", "warehouse API", "reservation flow", "import job"}, []string{"src/main/java/stock/StockService.java", "src/main/java/warehouse/WarehouseController.java", "build.gradle"}, "./gradlew test"},
		{"/home/dev/src/game-engine", []string{"renderer", "physics world", "asset loader", "input system"}, []string{"src/render/pipeline.cpp", "src/physics/world.cpp", "src/assets/loader.cpp"}, "ctest"},
		{"/home/dev/src/compiler", []string{"type checker", "parser", "code generator", "diagnostics"}, []string{"crates/typeck/src/lib.rs", "crates/parser/src/lib.rs", "crates/codegen/src/lib.rs"}, "cargo test"},
		{"/home/dev/src/k8s-operator", []string{"database controller", "backup controller", "webhook server", "CRD schema"}, []string{"controllers/database_controller.go", "api/v1/database_types.go", "config/crd/bases/db.yaml"}, "make test"},
		{"/home/dev/src/scheduler", []string{"job runner", "cron parser", "worker pool", "job API"}, []string{"runner/runner.go", "cron/parse.go", "worker/pool.go"}, "go test ./..."},
		{"/home/dev/src/analytics", []string{"revenue model", "sessions model", "country dimension", "retention report"}, []string{"models/revenue.sql", "models/sessions.sql", "dbt_project.yml"}, "dbt test"},
		{"/home/dev/src/video-transcoder", []string{"job queue", "thumbnail step", "upload handler", "rendition ladder"}, []string{"worker/transcode.go", "ladder/ladder.go", "api/upload.go"}, "go test ./..."},
		{"/home/dev/src/home-automation", []string{"heating schedule", "door sensor automation", "energy dashboard", "garden watering"}, []string{"automations/heating.py", "automations/doors.py", "config/devices.yaml"}, "pytest"},
		{"/home/dev/dotfiles", []string{"git config", "neovim config", "ssh config", "install script"}, []string{"git/.gitconfig", "nvim/init.lua", "install.sh"}, "shellcheck install.sh"},
		{"/home/dev/src/docs-site", []string{"sidebar", "landing page", "API reference", "changelog page"}, []string{"docusaurus.config.js", "sidebars.js", "src/pages/index.tsx"}, "npm run build"},
		{"/home/dev/src/cli-tools", []string{"devctl login command", "config file loader", "update checker", "output formatter"}, []string{"cmd/devctl/login.go", "internal/config/load.go", "internal/output/table.go"}, "go test ./..."},
	}
}

// vocabulary is the shared text sessions are assembled from. One lives
// per generator, so nothing is shared between generations.
//
// Templates name their slots: {component} is one of the project's
// components, {file} one of its files, {n} a small number and {mention} a
// topic's Mention.
type vocabulary struct {
	chores, followUps, fillerSentences, mentionSentences, shellOutputs, chatter []string
}

func newVocabulary() *vocabulary {
	return &vocabulary{
		// chores are the everyday work background sessions are about.
		chores: []string{
			"Can you rename the options struct in the {component} so the fields match the config file?",
			"Please update the dependencies of the {component} and make sure everything still builds.",
			"The linter complains about the {component}; can you clean up the warnings?",
			"Write a short README section explaining how the {component} is configured.",
			"Add structured logging to the {component} so we can follow one request through it.",
			"Refactor the {component}: the main function is far too long to read.",
			"Can you review my change to the {component} before I open the pull request?",
			"The build of the {component} got slow; can you see where the time goes?",
			"Add a few unit tests around the {component}, coverage there is thin.",
			"Move the hard-coded values in the {component} into the config file.",
			"Can you bump the version and write the changelog entry for the {component}?",
			"The {component} prints an ugly error when the config file is missing. Make the message helpful.",
		},

		// followUps are the user's later prompts in a chore session.
		followUps: []string{
			"Looks fine, but can you also update the docs for the {component}?",
			"Run the whole test suite again, something in the {component} looked off earlier.",
			"Can you split that change into two commits, one for the {component} and one for the rest?",
			"Please add a comment explaining why the {component} does it this way.",
			"Check that the {component} still works with the old config format.",
		},

		// fillerSentences make up assistant replies in chores.
		fillerSentences: []string{
			"I read through {file} first to see how the {component} is wired before changing anything.",
			"The change touches {n} files; most of it is renaming fields in the {component}.",
			"All {n} tests pass locally and the linter is clean.",
			"I left a TODO where the {component} still reads the old config key, since removing it would break existing setups.",
			"The {component} logged every request at info level, so I moved those lines to debug.",
			"CI is green on the branch; the only warning is about a deprecated action version.",
			"I kept the public API of the {component} unchanged, so callers do not need to change.",
			"There was an unused helper in {file}, which I removed.",
			"The error message now names the file it could not read and suggests running the setup command.",
			"I split the long function in {file} into three smaller ones with names that say what they do.",
			"The build spends most of its time in code generation; caching that step saves about {n} seconds.",
			"I updated the example in the README so it matches the new option names.",
			"Nothing else in the {component} depends on the old behaviour, I checked with a search over the repo.",
			"The defaults are the same as before, so nothing changes for people who do not set the new option.",
			"I wrote the changelog entry under Unreleased and bumped the minor version.",
			"Two of the older tests relied on the map iteration order; I made them sort before comparing.",
			"The config loader now reports which key was invalid instead of failing with a generic parse error.",
			"I also fixed a typo in the help text of the {component} while I was there.",
		},

		// mentionSentences place a topic's Mention in a reply about something
		// else: the passing mentions the seed report complains about.
		mentionSentences: []string{
			"This is unrelated to {mention}, which stays as it is.",
			"I did not touch {mention} in this change.",
			"Side note: {mention} from a while ago still shows up in the git log for this file.",
			"It is similar in spirit to {mention}, but much simpler.",
			"Once this lands we could revisit {mention}, but not now.",
			"The diff looks bigger than it is because the file also holds {mention}.",
			"I saw a comment about {mention} nearby and left it alone.",
		},

		// shellOutputs are tool results of chore commands.
		shellOutputs: []string{
			"ok  \tall packages\t3.412s",
			"PASS\n42 passed, 0 failed",
			"On branch main\nnothing to commit, working tree clean",
			"Build succeeded in 18.2s",
			"0 problems (0 errors, 0 warnings)",
		},

		// chatter are short assistant lines that carry a session along.
		chatter: []string{
			"Let me look at how this is structured before changing anything.",
			"I'll run the tests to make sure nothing else broke.",
			"Here is the plan: read the code, make the change, then run the suite.",
		},
	}
}

// recallLeadIn is what the assistant says before running recall: it names
// no topic, so only the recalled text that follows can echo one.
const recallLeadIn = "Before changing this, let me look up what we did last time."
