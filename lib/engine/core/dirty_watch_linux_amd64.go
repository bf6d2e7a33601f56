package core

const sysUserfaultfd = 323
