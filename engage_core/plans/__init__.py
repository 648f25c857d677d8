"""Plans and usage: limits and features of each plan, the plan in force, and what a workspace uses."""
