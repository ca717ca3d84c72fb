from coach.cli import console

console()
